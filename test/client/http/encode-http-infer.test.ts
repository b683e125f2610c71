import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeHttpInfer } from '../../../src/client/http/encode-http-infer.js';
import { parseResponseJson, decodeHttpInfer } from '../../../src/client/http/decode-http-infer.js';
import { decodeInferRequest } from '../../../src/protocol/index.js';
import { createTensor } from '../../../src/tensor/index.js';

const join = (chunks: (string | Uint8Array)[]) => Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));

test('binary: numeric inputs go out as views of their typed arrays, the header says the JSON length', () => {
  const x = createTensor('X', 'FP32', [2], [1.5, -2]);
  const body = encodeHttpInfer([x], {}, true);
  assert.equal(body.chunks.length, 2);
  assert.equal((body.chunks[1] as Uint8Array).buffer, (x.data as Float32Array).buffer, 'no copy of the tensor');
  const all = join(body.chunks);
  assert.equal(all.byteLength, body.byteLength);
  const header = JSON.parse(all.subarray(0, body.headerLength).toString());
  assert.deepEqual(header.inputs[0].parameters, { binary_data_size: 8 });
  assert.deepEqual(header.parameters, { binary_data_output: true });
  const { request, encoding } = decodeInferRequest(header, { model: 'm', binary: all.subarray(body.headerLength!) });
  assert.deepEqual(Array.from(request.inputs[0]!.data as Float32Array), [1.5, -2]);
  assert.equal(encoding.binaryDefault, true);
});

test('JSON: plain data, INT64 past 2^53 as strings, FP16 still binary; reserved fields become parameters', () => {
  const big = createTensor('B', 'INT64', [2], [9007199254740993n, -3n]);
  const half = createTensor('H', 'FP16', [1], Uint16Array.of(0x3c00));
  const body = encodeHttpInfer([big, half], {
    id: 'a', priority: 2, timeoutUs: 100, sequence: { id: 42n, start: true }, parameters: { p: 'v' },
    outputs: [{ name: 'O', classification: 2 }, { name: 'P', binary: true }],
  }, false);
  const all = join(body.chunks);
  const header = JSON.parse(all.subarray(0, body.headerLength).toString());
  assert.deepEqual(header.inputs[0].data, ['9007199254740993', -3]);
  assert.deepEqual(header.inputs[1].parameters, { binary_data_size: 2 });
  assert.deepEqual(header.parameters, { p: 'v', priority: 2, timeout: 100, sequence_id: 42, sequence_start: true });
  assert.deepEqual(header.outputs, [
    { name: 'O', parameters: { binary_data: false, classification: 2 } },
    { name: 'P', parameters: { binary_data: true } },
  ]);
  const { request } = decodeInferRequest(header, { model: 'm', binary: all.subarray(body.headerLength!) });
  assert.deepEqual(Array.from(request.inputs[0]!.data as BigInt64Array), [9007199254740993n, -3n]);
  assert.deepEqual(request.sequence, { id: 42n, start: true, end: false });
  assert.equal(request.priority, 2);
  const plain = encodeHttpInfer([createTensor('S', 'BYTES', [1], ['x'])], {}, false);
  assert.equal(plain.headerLength, undefined);
  assert.equal(plain.chunks.length, 1);
});

test('responses: long integers in JSON data are read exactly; strings that merely look alike are left alone', () => {
  const text = '{"model_name":"m","model_version":"1","outputs":['
    + '{"name":"A","datatype":"UINT64","shape":[2],"data":[18446744073709551615,1]},'
    + '{"name":"S","datatype":"BYTES","shape":[1],"data":["\\"data\\":[12345678901234567]"]},'
    + '{"name":"F","datatype":"FP64","shape":[1],"data":[1.2345678901234567e+300]}]}';
  const res = parseResponseJson(text);
  assert.deepEqual(res.outputs![0]!.data, ['18446744073709551615', 1]);
  assert.deepEqual(res.outputs![1]!.data, ['"data":[12345678901234567]']);
  const r = decodeHttpInfer(Buffer.from(text), undefined);
  assert.deepEqual(Array.from(r.output('A').data as BigUint64Array), [2n ** 64n - 1n, 1n]);
  assert.equal((r.output('F').data as Float64Array)[0], 1.2345678901234567e300);
});
