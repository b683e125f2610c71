/**
 * Element values out of their datatype's range, over both front ends of one real server: JSON
 * numbers that overflow a double (1e309, a 100,000-digit integer) or FP32 (1e39) are refused with
 * 400, not turned into Infinity or null; gRPC typed contents past a narrow datatype (300 as INT8)
 * are INVALID_ARGUMENT, not wrapped. Every message names the model, the tensor and the element.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { status, type ServiceError } from '@grpc/grpc-js';
import { startWireServers, type WireServers } from '../../helpers/wire-servers.js';

const TYPES = ['INT8', 'INT16', 'UINT8', 'UINT16', 'INT32', 'UINT32', 'INT64', 'FP32', 'FP64'];
const CONFIG = [
  'name: "ranges"', 'backend: "identity"', 'max_batch_size: 0',
  `input [ ${TYPES.map((t) => `{ name: "IN_${t}" data_type: TYPE_${t} dims: [ -1 ] optional: true }`).join(', ')} ]`,
  `output [ ${TYPES.map((t) => `{ name: "OUT_${t}" data_type: TYPE_${t} dims: [ -1 ] }`).join(', ')} ]`, '',
].join('\n');

const RANGE_FP32 = /is out of range for FP32 \[-3\.4028234663852886e\+38, 3\.4028234663852886e\+38\]/;
const RANGE_FP64 = /is out of range for FP64 \[-1\.7976931348623157e\+308, 1\.7976931348623157e\+308\]/;

describe('element values out of range', () => {
  let s: WireServers;
  before(async () => {
    s = await startWireServers({ 'ranges/config.pbtxt': CONFIG, 'ranges/1/.keep': '' });
  });
  after(async () => {
    await s?.close();
  });

  /** POST one input whose `data` is the given JSON text (so literals JSON.stringify cannot write get through). */
  const post = async (datatype: string, dataText: string) => {
    const body = `{"inputs":[{"name":"IN_${datatype}","datatype":"${datatype}","shape":[2],"data":[1,${dataText}]}]}`;
    const r = await fetch(`${s.base}/v2/models/ranges/infer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: r.status, body: await r.json() as { error?: string; outputs?: { data: unknown[] }[] } };
  };

  const JSON_CASES: Array<[string, string, string, RegExp]> = [
    ['1e309 as FP64', 'FP64', '1e309', /value above 1\.7976931348623157e\+308 /],
    ['-1e309 as FP64', 'FP64', '-1e309', /value below -1\.7976931348623157e\+308 /],
    ['1e309 as FP32', 'FP32', '1e309', /value above 1\.7976931348623157e\+308 /],
    ['-1e309 as FP32', 'FP32', '-1e309', /value below -1\.7976931348623157e\+308 /],
    ['a 100,000-digit integer as FP64', 'FP64', `1${'0'.repeat(99_999)}`, /value above 1\.7976931348623157e\+308 /],
    ['a negative 100,000-digit integer as FP32', 'FP32', `-9${'9'.repeat(99_999)}`, /value below -1\.7976931348623157e\+308 /],
    ['1e39 as FP32 (finite as a double)', 'FP32', '1e39', /value 1e\+39 /],
    ['a 100,000-digit integer as INT64', 'INT64', `1${'0'.repeat(99_999)}`, /value above 1\.7976931348623157e\+308 is out of range for INT64/],
    ['a 100,000-digit decimal string as INT64', 'INT64', `"${'7'.repeat(100_000)}"`, /value 777777777777\.\.\. \(100000 digits\) is out of range for INT64/],
    ['1e309 as INT8', 'INT8', '1e309', /value above 1\.7976931348623157e\+308 is out of range for INT8 \[-128, 127\]/],
  ];

  for (const [what, datatype, literal, value] of JSON_CASES) {
    test(`HTTP JSON: ${what} is refused with 400 naming the model, the tensor and the element`, async () => {
      const r = await post(datatype, literal);
      assert.equal(r.status, 400, JSON.stringify(r.body).slice(0, 300));
      const message = r.body.error ?? '';
      assert.match(message, new RegExp(`^model 'ranges': tensor 'IN_${datatype}': element 1 `));
      assert.match(message, value);
      if (datatype === 'FP32') assert.match(message, RANGE_FP32);
      if (datatype === 'FP64') assert.match(message, RANGE_FP64);
    });
  }

  test("HTTP JSON: FP32's own largest value, as printed, is accepted (it rounds to the max, not to infinity)", async () => {
    const r = await post('FP32', '3.4028235e38');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.outputs?.[0]?.data, [1, 3.4028234663852886e38]);
    const tiny = await post('FP64', '1e-400');
    assert.equal(tiny.status, 200, 'underflow is precision, not range: it becomes 0, as in numpy');
    assert.deepEqual(tiny.body.outputs?.[0]?.data, [1, 0]);
  });

  const grpcInfer = (datatype: string, field: string, values: unknown[]) =>
    s.grpc.call('ModelInfer', {
      model_name: 'ranges', inputs: [{ name: `IN_${datatype}`, datatype, shape: [values.length], contents: { [field]: values } }],
    }).then((res) => ({ res, err: undefined }), (err: ServiceError) => ({ res: undefined, err }));

  const GRPC_CASES: Array<[string, string, unknown[], string]> = [
    ['INT8', 'int_contents', [1, 300], "value 300 is out of range for INT8 [-128, 127] (int_contents)"],
    ['INT8', 'int_contents', [1, -129], "value -129 is out of range for INT8 [-128, 127] (int_contents)"],
    ['INT16', 'int_contents', [1, 40_000], "value 40000 is out of range for INT16 [-32768, 32767] (int_contents)"],
    ['UINT8', 'uint_contents', [1, 256], "value 256 is out of range for UINT8 [0, 255] (uint_contents)"],
    ['UINT16', 'uint_contents', [1, 70_000], "value 70000 is out of range for UINT16 [0, 65535] (uint_contents)"],
  ];

  for (const [datatype, field, values, detail] of GRPC_CASES) {
    test(`gRPC: ${field} ${JSON.stringify(values)} for ${datatype} is INVALID_ARGUMENT naming the model, the tensor and the element`, async () => {
      const { err } = await grpcInfer(datatype, field, values);
      assert.equal(err?.code, status.INVALID_ARGUMENT, String(err));
      assert.equal(err.details, `model 'ranges': tensor 'IN_${datatype}': element 1 ${detail}`);
    });
  }

  test('gRPC: values at the edges of each narrow datatype, and the full 32-bit ones, pass unchanged', async () => {
    const edges: Array<[string, string, number[]]> = [
      ['INT8', 'int_contents', [-128, 127]], ['INT16', 'int_contents', [-32768, 32767]],
      ['UINT8', 'uint_contents', [0, 255]], ['UINT16', 'uint_contents', [0, 65535]],
      ['INT32', 'int_contents', [-2147483648, 2147483647]], ['UINT32', 'uint_contents', [0, 4294967295]],
    ];
    for (const [datatype, field, values] of edges) {
      const { res, err } = await grpcInfer(datatype, field, values);
      assert.equal(err, undefined, String(err));
      const raw = res.raw_output_contents[0] as Buffer;
      const Ctor = { INT8: Int8Array, INT16: Int16Array, UINT8: Uint8Array, UINT16: Uint16Array, INT32: Int32Array, UINT32: Uint32Array }[datatype]!;
      assert.deepEqual([...new Ctor(Uint8Array.from(raw).buffer)], values, datatype);
    }
  });

  test('the server answers a good request after every refusal', async () => {
    const r = await post('INT8', '2');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.outputs?.[0]?.data, [1, 2]);
  });
});
