/**
 * The large-tensor path end to end: bodies read into one aligned buffer (any header length, with
 * or without Content-Length), large binary responses sent as chunks with a correct Content-Length,
 * compression still applied when accepted, and a 16 MB request through an ORT worker model.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { decodeInferResponse, encodeInferRequest } from '../../../src/protocol/index.js';
import { createTensor, type Tensor } from '../../../src/tensor/index.js';
import { startTestServer, type TestServer } from './test-server.js';

const MODEL_4M = new URL('../../../build/models/identity_4m.onnx', import.meta.url).pathname;
const E4M = 4 * 1024 * 1024;

let t: TestServer;
before(async () => { t = await startTestServer({ maxInputSize: 64 * 1024 * 1024 }); });
after(async () => { await t.close(); });

/** A raw POST, optionally chunked (no Content-Length), returning status, headers and the whole body. */
function post(path: string, body: Buffer, headers: Record<string, string | number>, chunked = false) {
  const url = new URL(t.base);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname, port: url.port, path, method: 'POST',
      headers: chunked ? headers : { ...headers, 'content-length': body.byteLength },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (chunked) {
      for (let p = 0; p < body.byteLength; p += 100_003) req.write(body.subarray(p, p + 100_003));
      req.end();
    } else {
      req.end(body);
    }
  });
}

function binaryRequest(inputs: Tensor[], id: string) {
  const enc = encodeInferRequest({ id, inputs, parameters: { binary_data_output: true } }, { binary: true });
  return { body: enc.body as Buffer, headers: { 'inference-header-content-length': enc.headerLength!, 'content-type': 'application/octet-stream' } };
}

const big = (n: number, seed: number) => ({
  f32: createTensor('IN_FP32', 'FP32', [n], Float32Array.from({ length: n }, (_, i) => Math.sin(i + seed))),
  f64: createTensor('IN_FP64', 'FP64', [n], Float64Array.from({ length: n }, (_, i) => Math.cos(i * seed))),
});

test('large binary inputs with any header length (alignment) and with or without Content-Length come back intact', async () => {
  const n = 100_001;
  for (const id of ['a', 'ab', 'abc', 'abcd', 'abcdefg']) {
    for (const chunked of [false, true]) {
      const { f32, f64 } = big(n, id.length);
      const r = binaryRequest([f32, f64], id);
      const res = await post('/v2/models/identity_types/infer', r.body, r.headers, chunked);
      assert.equal(res.status, 200, res.body.subarray(0, 200).toString());
      assert.equal(Number(res.headers['content-length']), res.body.byteLength);
      const out = decodeInferResponse(res.body, Number(res.headers['inference-header-content-length']));
      assert.equal(out.id, id);
      const got = Object.fromEntries(out.outputs.map((o) => [o.name, o]));
      assert.deepEqual(got.OUT_FP32!.data, f32.data, `id ${id} chunked ${chunked}`);
      assert.deepEqual(got.OUT_FP64!.data, f64.data, `id ${id} chunked ${chunked}`);
    }
  }
});

test('a large binary response is still compressed when the client accepts gzip', async () => {
  const { f32 } = big(50_000, 3);
  const r = binaryRequest([f32], 'z');
  const res = await post('/v2/models/identity_types/infer', r.body, { ...r.headers, 'accept-encoding': 'gzip' });
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-encoding'], 'gzip');
  const plain = gunzipSync(res.body);
  assert.ok(res.body.byteLength < plain.byteLength);
  const out = decodeInferResponse(plain, Number(res.headers['inference-header-content-length']));
  assert.deepEqual(out.outputs[0]!.data, f32.data);
});

test('a raw body over the limit is refused with 400 before it is read, in Triton\'s words', async () => {
  const res = await post('/v2/models/identity_types/infer', Buffer.alloc(16), { 'content-length': 65 * 1024 * 1024, 'content-type': 'application/octet-stream', 'inference-header-content-length': '0' }, true)
    .catch((e: Error) => ({ status: 0, headers: {}, body: Buffer.from(e.message) }));
  assert.equal(res.status, 400, res.body.toString());
  assert.equal(JSON.parse(res.body.toString()).error, 'Raw input has a byte_size (68157440 bytes) that exceeds the maximum allowed value of 67108864 bytes. Use --http-max-input-size to increase the limit.');
});

test('16 MB through an onnxruntime model in a worker thread (the body moves, not copied), twice', { skip: !existsSync(MODEL_4M) && 'run npm run build-models' }, async () => {
  const dir = join(t.repo, 'identity_4m');
  mkdirSync(join(dir, '1'), { recursive: true });
  cpSync(MODEL_4M, join(dir, '1/model.onnx'));
  writeFileSync(join(dir, 'config.pbtxt'), [
    'name: "identity_4m"', 'platform: "onnxruntime_onnx"', 'max_batch_size: 1',
    `input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ ${E4M} ] } ]`, `output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ ${E4M} ] } ]`,
    'parameters { key: "execution_target" value { string_value: "worker" } }', '',
  ].join('\n'));
  await t.server.loadModel('identity_4m');
  for (const seed of [1, 2]) {
    const x = createTensor('INPUT0', 'FP32', [1, E4M], Float32Array.from({ length: E4M }, (_, i) => (i * seed) % 997));
    const r = binaryRequest([x], 'w'.repeat(seed));
    const res = await post('/v2/models/identity_4m/infer', r.body, r.headers);
    assert.equal(res.status, 200, res.body.subarray(0, 200).toString());
    const out = decodeInferResponse(res.body, Number(res.headers['inference-header-content-length']));
    const y = out.outputs[0]!.data as Float32Array;
    assert.ok(Buffer.from(y.buffer, y.byteOffset, y.byteLength).equals(Buffer.from((x.data as Float32Array).buffer)), `seed ${seed}`);
  }
  await t.server.unloadModel('identity_4m');
});

test('a pipeline that feeds one large input to two worker-thread steps: the body is copied, never moved', async () => {
  const rows = 8000; // 8000 x 16 FP32 = 512 KB: over the 64 KiB at which a body may be moved to a worker
  const n = rows * 16;
  const step = (name: string) => {
    const dir = join(t.repo, name);
    mkdirSync(join(dir, '1'), { recursive: true });
    cpSync(new URL('../../../build/models/identity_fp32.onnx', import.meta.url).pathname, join(dir, '1/model.onnx'));
    writeFileSync(join(dir, 'config.pbtxt'), [
      `name: "${name}"`, 'platform: "onnxruntime_onnx"', 'max_batch_size: 8000',
      `input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]`, `output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]`,
      'parameters { key: "execution_target" value { string_value: "worker" } }', '',
    ].join('\n'));
  };
  step('twin_a');
  step('twin_b');
  const dir = join(t.repo, 'twins');
  mkdirSync(join(dir, '1'), { recursive: true });
  writeFileSync(join(dir, 'config.pbtxt'), [
    'name: "twins"', 'platform: "ensemble"', 'max_batch_size: 8000',
    'input [ { name: "X" data_type: TYPE_FP32 dims: [ 16 ] } ]',
    'output [ { name: "A" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "B" data_type: TYPE_FP32 dims: [ 16 ] } ]',
    'ensemble_scheduling { step [',
    '  { model_name: "twin_a" model_version: -1 input_map { key: "INPUT0" value: "X" } output_map { key: "OUTPUT0" value: "A" } },',
    '  { model_name: "twin_b" model_version: -1 input_map { key: "INPUT0" value: "X" } output_map { key: "OUTPUT0" value: "B" } }',
    '] }', '',
  ].join('\n'));
  await t.server.loadModel('twins');
  const x = createTensor('X', 'FP32', [rows, 16], Float32Array.from({ length: n }, (_, i) => i % 101));
  const r = binaryRequest([x], 'pipeline');
  const res = await post('/v2/models/twins/infer', r.body, r.headers);
  assert.equal(res.status, 200, res.body.subarray(0, 300).toString());
  const out = decodeInferResponse(res.body, Number(res.headers['inference-header-content-length']));
  for (const name of ['A', 'B']) {
    const y = out.outputs.find((o) => o.name === name)!.data as Float32Array;
    assert.equal(y.length, n, name);
    assert.ok(Buffer.from(y.buffer, y.byteOffset, y.byteLength).equals(Buffer.from((x.data as Float32Array).buffer)), name);
  }
  await t.server.unloadModel('twins', { unloadDependents: true });
});
