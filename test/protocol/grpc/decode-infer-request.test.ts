import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadProtos } from '../../../src/frontend/grpc/load-protos.js';
import { decodeInferRequest } from '../../../src/protocol/grpc/decode-infer-request.js';
import { inferRequestFromProto, tensorToContents } from '../../../src/protocol/grpc/index.js';
import { tensorToBytes } from '../../../src/tensor/index.js';
import { ALL_DATATYPES, sampleTensor } from '../../frontend/grpc/datatype-samples.js';

const method = (loadProtos() as any)['inference.GRPCInferenceService'].ModelInfer;
const encode = (msg: object): Buffer => method.requestSerialize(msg);
const reference = (buf: Buffer) => method.requestDeserialize(buf);

/** proto-loader gives int64 as decimal strings; the hand-written decoder gives numbers when exact. */
function normalise(v: unknown, key = ''): unknown {
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (Array.isArray(v)) return v.map((x) => normalise(x, key));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalise(x, k)]));
  if (typeof v === 'number' && /shape|int64|uint64/.test(key)) return String(v);
  return v;
}

function assertSameAsReference(msg: object): ReturnType<typeof decodeInferRequest> {
  const buf = encode(msg);
  const mine = decodeInferRequest(buf);
  assert.deepEqual(normalise(mine), normalise(reference(buf)));
  return mine;
}

test('every datatype in typed contents decodes as proto-loader decodes it', () => {
  const typed = ALL_DATATYPES.filter((dt) => dt !== 'FP16' && dt !== 'BF16');
  const inputs = typed.map((dt) => {
    const t = sampleTensor(`IN_${dt}`, dt);
    return { name: t.name, datatype: dt, shape: t.shape, contents: tensorToContents(t) };
  });
  const mine = assertSameAsReference({ model_name: 'm', inputs });
  // Through the shared conversion, every tensor comes back with the values it was made from.
  const { request } = inferRequestFromProto(mine);
  for (const [i, dt] of typed.entries()) {
    assert.deepEqual(Buffer.from(tensorToBytes(request.inputs[i]!)), Buffer.from(tensorToBytes(sampleTensor(`IN_${dt}`, dt))), dt);
  }
  const i64 = mine.inputs.find((t) => t.datatype === 'INT64')!.contents!.int64_contents!;
  assert.deepEqual(i64, ['-9223372036854775808', '9007199254740993', '9223372036854775807'], 'past 2^53 int64 stays exact as a string');
});

test('every datatype in raw_input_contents: views of the received buffer, same bytes', () => {
  const tensors = ALL_DATATYPES.map((dt) => sampleTensor(`IN_${dt}`, dt));
  const msg = {
    model_name: 'm', inputs: tensors.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape })),
    raw_input_contents: tensors.map((t) => Buffer.from(tensorToBytes(t))),
  };
  const buf = encode(msg);
  const mine = assertSameAsReference(msg);
  for (const [i, raw] of mine.raw_input_contents!.entries()) {
    assert.equal(raw.buffer, buf.buffer, 'zero-copy view');
    assert.deepEqual(Buffer.from(raw), msg.raw_input_contents[i]);
  }
  const { request } = inferRequestFromProto(mine);
  assert.deepEqual(request.inputs.map((t) => t.datatype), [...ALL_DATATYPES]);
});

test('parameters of every kind on the request, inputs and outputs; header strings and versions', () => {
  const params = {
    flag: { bool_param: true },
    off: { bool_param: false },
    small: { int64_param: -7 },
    huge: { int64_param: '-9223372036854775807' },
    text: { string_param: 'héllo' },
    ratio: { double_param: 0.125 },
    seq: { uint64_param: '18446744073709551615' },
    zero: { uint64_param: 0 },
    none: {},
  };
  const mine = assertSameAsReference({
    model_name: 'model', model_version: '3', id: 'req-1', parameters: params,
    inputs: [{ name: 'A', datatype: 'INT32', shape: [2, -1, 0, 4294967296], parameters: { shared_memory_region: { string_param: 'r' } } }],
    outputs: [{ name: 'B', parameters: { classification: { int64_param: 3 } } }, { name: 'C' }],
    raw_input_contents: [Buffer.alloc(0)],
  });
  assert.deepEqual(mine.inputs[0]!.shape, [2, -1, 0, 4294967296]);
  assert.deepEqual(mine.parameters!.small, { int64_param: -7, parameter_choice: 'int64_param' });
  assert.deepEqual(mine.parameters!.seq, { uint64_param: '18446744073709551615', parameter_choice: 'uint64_param' });
});

test('an empty message decodes to the defaults', () => {
  assertSameAsReference({});
});

test('unpacked repeated scalars and unknown fields are accepted', () => {
  // shape [2, 3] unpacked (tag 0x18 per element), fp32 contents unpacked (tag 0x35), an unknown
  // varint field 15 and an unknown length-delimited field 16 on the request.
  const name = Buffer.from([0x0a, 1, 0x78]);
  const contents = Buffer.from([0x35, ...new Uint8Array(Float32Array.of(1.5).buffer), 0x35, ...new Uint8Array(Float32Array.of(-2).buffer)]);
  const input = Buffer.concat([name, Buffer.from([0x12, 4, ...Buffer.from('FP32'), 0x18, 2, 0x18, 3, 0x2a, contents.length]), contents]);
  const buf = Buffer.concat([Buffer.from([0x0a, 1, 0x6d, 0x2a, input.length]), input, Buffer.from([0x78, 0x96, 0x01, 0x82, 0x01, 2, 0xaa, 0xbb])]);
  const mine = decodeInferRequest(buf);
  assert.deepEqual(normalise(mine), normalise(reference(buf)));
  assert.deepEqual(mine.inputs[0]!.shape, [2, 3]);
  assert.deepEqual(mine.inputs[0]!.contents!.fp32_contents, [1.5, -2]);
});

test('truncated or malformed input is a clear INVALID_ARG error, never a crash', () => {
  const fields = [{ model_name: 'model' }, { inputs: [{ name: 'A', datatype: 'FP32', shape: [1, 4] }] }, { raw_input_contents: [Buffer.alloc(16)] }];
  const good = encode(Object.assign({}, ...fields));
  // Prefixes that end exactly between top-level fields are valid (shorter) messages.
  const boundaries = fields.map((_, i) => encode(Object.assign({}, ...fields.slice(0, i + 1))).length);
  for (let cut = 1; cut < good.length; cut++) {
    const part = good.subarray(0, cut);
    let ok = true;
    try {
      decodeInferRequest(part);
    } catch (e: any) {
      ok = false;
      assert.equal(e.kind, 'INVALID_ARG');
      assert.match(e.message, /^malformed ModelInferRequest: .* at byte \d+$/);
    }
    assert.equal(ok, boundaries.includes(cut), `prefix of ${cut} bytes`);
  }
  // A sub-message's length cannot run past its parent's.
  const lying = Buffer.from([0x2a, 3, 0x0a, 5, 0x41, 0x0a, 0x01, 0x41, 0x41]);
  assert.throws(() => decodeInferRequest(lying), /length 5 past the end/);
  assert.throws(() => decodeInferRequest(Buffer.from([0x0b])), /unsupported wire type 3/);
});
