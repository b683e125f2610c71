import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadProtos } from '../../../src/frontend/grpc/load-protos.js';
import { CONTENTS_LIMITS, decodeInferRequest } from '../../../src/protocol/grpc/decode-infer-request.js';
import { boundedInferDeserializer, RefusedRequest } from '../../../src/frontend/grpc/bounded-infer-deserializer.js';
import { REQUEST_LIMITS } from '../../../src/protocol/request-limits.js';
import { TributaryError } from '../../../src/errors.js';
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
  // The views must be of the very buffer decoded (a second encoding shares its ArrayBuffer only
  // while both fit one slab of Buffer's pool).
  const buf = encode(msg);
  const mine = decodeInferRequest(buf);
  assert.deepEqual(normalise(mine), normalise(reference(buf)));
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

// --- bounds: the decoder stops at the request limits before building what lies past them ---

const varint = (n: number): number[] => {
  const out: number[] = [];
  while (n >= 128) { out.push((n % 128) | 128); n = Math.floor(n / 128); }
  out.push(n);
  return out;
};
const field = (tag: number, body: Buffer) => Buffer.concat([Buffer.from([tag, ...varint(body.length)]), body]);
const repeat = (n: number, piece: Buffer) => Buffer.concat(Array.from({ length: n }, () => piece));
const modelName = field(0x0a, Buffer.from('m'));

function refusedWith(buf: Buffer, code: string, message: RegExp): void {
  assert.throws(() => decodeInferRequest(buf), (e: any) => {
    assert.equal(e.code, code);
    assert.equal(e.kind, 'INVALID_ARG');
    assert.match(e.message, message);
    return true;
  });
}

test('inputs past REQUEST_LIMITS.maxInputs are refused with their exact count', () => {
  const n = REQUEST_LIMITS.maxInputs;
  assert.equal(decodeInferRequest(Buffer.concat([modelName, repeat(n, Buffer.from([0x2a, 0]))])).inputs.length, n);
  refusedWith(Buffer.concat([modelName, repeat(n + 5, Buffer.from([0x2a, 0]))]), 'TRB_REQUEST_TOO_MANY_INPUTS',
    new RegExp(`^model 'm': the request has ${n + 5} inputs, more than the limit of ${n}$`));
});

test('8 MiB of empty inputs is refused at once, without building 4 million objects', () => {
  const buf = Buffer.concat([modelName, repeat(4 << 20, Buffer.from([0x2a, 0]))]);
  const t0 = performance.now();
  refusedWith(buf, 'TRB_REQUEST_TOO_MANY_INPUTS', /the request has 4194304 inputs/);
  assert.ok(performance.now() - t0 < 1000, `took ${performance.now() - t0} ms`);
});

test('outputs, raw_input_contents and parameters past their limits are refused', () => {
  refusedWith(Buffer.concat([modelName, repeat(REQUEST_LIMITS.maxOutputs + 1, Buffer.from([0x32, 0]))]), 'TRB_REQUEST_TOO_MANY_OUTPUTS',
    /asks for 1025 outputs, more than the limit of 1024/);
  refusedWith(Buffer.concat([modelName, repeat(REQUEST_LIMITS.maxInputs + 2, Buffer.from([0x3a, 0]))]), 'TRB_GRPC_TOO_MANY_RAW_CONTENTS',
    /raw_input_contents has 1026 entries, more than the limit of 1024/);
  const entry = (k: string) => field(0x22, field(0x0a, Buffer.from(k)));
  const max = REQUEST_LIMITS.maxParameters;
  const params = Array.from({ length: max + 3 }, (_, i) => entry(`p${i}`));
  refusedWith(Buffer.concat([modelName, ...params]), 'TRB_REQUEST_TOO_MANY_PARAMETERS', new RegExp(`^request has ${max + 3} parameters`));
  // The same key again and again is one parameter.
  assert.equal(Object.keys(decodeInferRequest(Buffer.concat([modelName, repeat(10_000, entry('same'))])).parameters!).length, 1);
  const input = field(0x2a, Buffer.concat([field(0x0a, Buffer.from('x')), ...params]));
  refusedWith(Buffer.concat([modelName, input]), 'TRB_REQUEST_TOO_MANY_PARAMETERS', new RegExp(`^input 'x' has ${max + 3} parameters`));
});

test('a shape past REQUEST_LIMITS.maxRank is refused, packed or not, with its rank', () => {
  const max = REQUEST_LIMITS.maxRank;
  const named = (body: Buffer) => Buffer.concat([modelName, field(0x2a, Buffer.concat([field(0x0a, Buffer.from('x')), body]))]);
  assert.equal(decodeInferRequest(named(field(0x1a, Buffer.alloc(max, 1)))).inputs[0]!.shape.length, max);
  refusedWith(named(field(0x1a, Buffer.alloc(100_000, 1))), 'TRB_REQUEST_RANK_TOO_LARGE', /^tensor 'x': the shape has 100000 dimensions, more than the limit of 64$/);
  refusedWith(named(repeat(max + 7, Buffer.from([0x18, 2]))), 'TRB_REQUEST_RANK_TOO_LARGE', new RegExp(`the shape has ${max + 7} dimensions`));
  refusedWith(named(Buffer.concat([field(0x1a, Buffer.alloc(60, 1)), repeat(10, Buffer.from([0x18, 2])), field(0x1a, Buffer.from([0x81, 1, 3]))])),
    'TRB_REQUEST_RANK_TOO_LARGE', /the shape has 72 dimensions/);
});

test('typed bytes_contents past CONTENTS_LIMITS point the client at raw_input_contents', () => {
  const contents = field(0x2a, repeat(CONTENTS_LIMITS.maxBytesElements + 1, Buffer.from([0x42, 0])));
  refusedWith(Buffer.concat([modelName, field(0x2a, Buffer.concat([field(0x0a, Buffer.from('s')), contents]))]), 'TRB_GRPC_CONTENTS_TOO_LARGE',
    /^model 'm', input 's': typed contents hold more than 1048576 bytes_contents strings in this request; send tensors this large in raw_input_contents/);
});

test('a parameter named __proto__ stays an ordinary own entry', () => {
  const entry = field(0x22, Buffer.concat([field(0x0a, Buffer.from('__proto__')), field(0x12, Buffer.from([0x08, 1]))]));
  const m = decodeInferRequest(Buffer.concat([modelName, entry, entry]));
  assert.deepEqual(Object.keys(m.parameters!), ['__proto__']);
  assert.equal(Object.getPrototypeOf(m.parameters), Object.prototype);
});

// --- fuzz: whatever the bytes, the decoder returns a message or a clean INVALID_ARG ---

/** A small deterministic PRNG (mulberry32), so a failure names a reproducible seed. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function decodesOrRefuses(buf: Buffer, what: string): void {
  let refused: unknown;
  try {
    decodeInferRequest(buf);
  } catch (e) {
    refused = e;
  }
  if (refused !== undefined) {
    assert.ok(refused instanceof TributaryError, `${what}: threw ${String(refused)}`);
    assert.equal(refused.kind, 'INVALID_ARG', what);
  }
  // What the server's grpc-js deserializer gets: never a throw, a refusal carrying the reason.
  const out = boundedInferDeserializer()(buf);
  if (refused === undefined) assert.ok(!(out instanceof RefusedRequest), what);
  else assert.ok(out instanceof RefusedRequest && out.error.message === (refused as Error).message, what);
}

test('fuzz: random buffers decode or are refused as INVALID_ARG, never anything else', () => {
  const rnd = prng(20240611);
  for (let i = 0; i < 5000; i++) {
    const len = Math.floor(rnd() * 200);
    const buf = Buffer.alloc(len);
    for (let j = 0; j < len; j++) buf[j] = Math.floor(rnd() * 256);
    // Bias some buffers towards the request's own tags so the nested paths are reached.
    if (len > 0 && rnd() < 0.5) buf[0] = [0x0a, 0x22, 0x2a, 0x32, 0x3a][Math.floor(rnd() * 5)]!;
    decodesOrRefuses(buf, `random buffer ${i}: ${buf.toString('hex')}`);
  }
});

test('fuzz: every truncation and single-byte corruption of a full request decodes or is refused cleanly', () => {
  const t = sampleTensor('IN_INT64', 'INT64');
  const good = encode({
    model_name: 'model', model_version: '2', id: 'r', parameters: { a: { string_param: 'x' }, b: { double_param: 1.5 }, c: { uint64_param: '18446744073709551615' } },
    inputs: [
      { name: 'A', datatype: 'INT64', shape: [1, 3], parameters: { p: { bool_param: true } }, contents: tensorToContents(t) },
      { name: 'B', datatype: 'FP32', shape: [2], contents: { fp32_contents: [1, 2] } },
      { name: 'C', datatype: 'BYTES', shape: [2], contents: { bytes_contents: [Buffer.from('hi'), Buffer.alloc(0)] } },
      { name: 'D', datatype: 'UINT8', shape: [4] },
    ],
    outputs: [{ name: 'O', parameters: { classification: { int64_param: 2 } } }],
    raw_input_contents: [Buffer.from([1, 2, 3, 4])],
  });
  const rnd = prng(7);
  for (let cut = 0; cut <= good.length; cut++) decodesOrRefuses(good.subarray(0, cut), `prefix of ${cut} bytes`);
  for (let i = 0; i < good.length; i++) {
    for (const v of [0x00, 0x7f, 0x80, 0xff, Math.floor(rnd() * 256)]) {
      const bad = Buffer.from(good);
      bad[i] = v;
      decodesOrRefuses(bad, `byte ${i} set to ${v}`);
    }
  }
});
