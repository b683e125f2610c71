import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync, gunzipSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import { decodeInferResponse, encodeInferRequest } from '../../../src/protocol/index.js';
import { createTensor, tensorStrings, type DataType, type Tensor } from '../../../src/tensor/index.js';
import type { RequestRecord } from '../../../src/model/statistics.js';
import { existsSync } from 'node:fs';
import { ORT_IDENTITY, startTestServer, type TestServer } from './test-server.js';

const HAS_ONNX = existsSync(ORT_IDENTITY);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked field by field
const loose = (v: unknown): any => v;
let t: TestServer;
before(async () => { t = await startTestServer(); });
after(async () => { await t.close(); });

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(t.base + path, { method: 'POST', headers, body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) });
const ones = (n: number) => Array.from({ length: n }, (_, i) => i + 0.5);

function allTypes(json = false): Tensor[] {
  // JSON numbers are doubles: 64-bit values past 2^53 travel exactly only in binary (or as decimal strings).
  const big = json ? 2n ** 53n : 2n ** 64n - 1n;
  const low = json ? -(2n ** 53n) : -(2n ** 63n);
  const spec: [DataType, string, unknown[]][] = [
    ['BOOL', 'BOOL', [true, false, true]], ['UINT8', 'UINT8', [0, 7, 255]], ['UINT16', 'UINT16', [1, 2, 65535]],
    ['UINT32', 'UINT32', [1, 2, 4294967295]], ['UINT64', 'UINT64', [1n, 2n, big]], ['INT8', 'INT8', [-128, 0, 127]],
    ['INT16', 'INT16', [-32768, 1, 32767]], ['INT32', 'INT32', [-5, 0, 2147483647]], ['INT64', 'INT64', [low, 0n, json ? 2n ** 53n : 2n ** 53n + 1n]],
    ['FP32', 'FP32', [0.5, -1.25, 3]], ['FP64', 'FP64', [Math.PI, -2.5, 1e300]], ['BYTES', 'STRING', ['a', 'ünïcode', '']],
  ];
  return spec.map(([dt, cfg, data]) => createTensor(`IN_${cfg}`, dt, [3], data as never));
}
const halfTypes = () => [
  createTensor('IN_FP16', 'FP16', [2], new Uint16Array([0x3c00, 0xc000])),
  createTensor('IN_BF16', 'BF16', [2], new Uint16Array([0x3fc0, 0x4000])),
];
const plain = (x: Tensor) => (x.datatype === 'BYTES' ? tensorStrings(x) : Array.from(x.data as ArrayLike<unknown>));

test('GET /v2 lists only extensions this server implements', async () => {
  const res = await fetch(`${t.base}/v2`);
  assert.equal(res.status, 200);
  const body = await res.json().then(loose);
  assert.equal(body.name, 'tributary');
  for (const e of ['binary_tensor_data', 'model_repository', 'statistics', 'model_configuration', 'logging', 'generate']) assert.ok(body.extensions.includes(e), e);
  for (const e of ['trace', 'system_shared_memory', 'cuda_shared_memory']) assert.ok(!body.extensions.includes(e), e);
});

test('health, model readiness, metadata and config', async () => {
  assert.equal((await fetch(`${t.base}/v2/health/live`)).status, 200);
  assert.equal((await fetch(`${t.base}/v2/health/ready`)).status, 200);
  assert.equal((await fetch(`${t.base}/v2/models/identity_fp32/ready`)).status, 200);
  assert.equal((await fetch(`${t.base}/v2/models/identity_fp32/versions/1/ready`)).status, 200);
  assert.equal((await fetch(`${t.base}/v2/models/identity_fp32/versions/2/ready`)).status, 400);
  assert.equal((await fetch(`${t.base}/v2/models/nope/ready`)).status, 400);
  const meta = await (await fetch(`${t.base}/v2/models/identity_fp32/versions/1`)).json().then(loose);
  assert.deepEqual(meta.inputs, [{ name: 'INPUT0', datatype: 'FP32', shape: [-1, 16] }]);
  assert.deepEqual(meta.versions, ['1']);
  const config = await (await fetch(`${t.base}/v2/models/identity_fp32/config`)).json().then(loose);
  assert.equal(config.max_batch_size, 8);
  assert.equal(config.input[0].data_type, 'TYPE_FP32');
  const missing = await fetch(`${t.base}/v2/models/nope/config`);
  assert.equal(missing.status, 404);
  assert.match((await missing.json().then(loose)).error, /unknown model: 'nope'/);
});

test('every JSON datatype round-trips through a real model', async () => {
  const inputs = allTypes(true);
  const enc = encodeInferRequest({ id: 'j1', inputs });
  const res = await post('/v2/models/identity_types/infer', enc.body);
  assert.equal(res.status, 200);
  const out = decodeInferResponse(Buffer.from(await res.arrayBuffer()));
  assert.equal(out.id, 'j1');
  for (const i of inputs) {
    const o = out.outputs.find((x) => x.name === i.name.replace('IN_', 'OUT_'))!;
    assert.equal(o.datatype, i.datatype);
    assert.deepEqual(plain(o), plain(i), i.name);
  }
  const exact = await post('/v2/models/identity_types/infer', { inputs: [{ name: 'IN_INT64', datatype: 'INT64', shape: [1], data: ['9007199254740993'] }] });
  assert.match(await exact.text(), /"data":\[9007199254740993\]/, 'INT64 as a decimal string is exact, and printed with every digit');
});

test('every datatype (FP16/BF16 too) over the binary extension, binary outputs', async () => {
  const inputs = [...allTypes(), ...halfTypes()];
  const enc = encodeInferRequest({ inputs, parameters: { binary_data_output: true } }, { binary: true });
  const res = await post('/v2/models/identity_types/infer', enc.body, {
    'inference-header-content-length': String(enc.headerLength), 'content-type': 'application/octet-stream',
  });
  assert.equal(res.status, 200);
  const hl = Number(res.headers.get('inference-header-content-length'));
  assert.ok(hl > 0);
  const out = decodeInferResponse(Buffer.from(await res.arrayBuffer()), hl);
  assert.equal(out.outputs.length, inputs.length);
  for (const i of inputs) assert.deepEqual(plain(out.outputs.find((x) => x.name === i.name.replace('IN_', 'OUT_'))!), plain(i), i.name);
});

test('per-output binary_data overrides; FP16 outputs in JSON are widened numbers', async () => {
  const enc = encodeInferRequest({
    inputs: [createTensor('IN_FP32', 'FP32', [2], [1, 2]), ...halfTypes()],
    outputs: [{ name: 'OUT_FP32', parameters: { binary_data: true } }, { name: 'OUT_FP16' }, { name: 'OUT_BF16' }],
  }, { binary: true });
  const res = await post('/v2/models/identity_types/infer', enc.body, { 'inference-header-content-length': String(enc.headerLength) });
  assert.equal(res.status, 200);
  const body = Buffer.from(await res.arrayBuffer());
  const hl = Number(res.headers.get('inference-header-content-length'));
  const header = JSON.parse(body.subarray(0, hl).toString());
  const byName = Object.fromEntries(header.outputs.map((o: { name: string }) => [o.name, o]));
  assert.deepEqual(byName.OUT_FP32.parameters, { binary_data_size: 8 });
  assert.deepEqual(byName.OUT_FP16.data, [1, -2]);
  assert.deepEqual(byName.OUT_BF16.data, [1.5, 2]);
  assert.deepEqual(Array.from(new Float32Array(body.buffer.slice(body.byteOffset + hl, body.byteOffset + hl + 8))), [1, 2]);
});

test('raw binary body (Inference-Header-Content-Length: 0) is one batch-1 input; outputs come back binary', async () => {
  const data = new Float32Array(ones(16));
  const res = await post('/v2/models/identity_fp32/infer', Buffer.from(data.buffer), { 'inference-header-content-length': '0', 'content-type': 'application/octet-stream' });
  assert.equal(res.status, 200);
  const out = decodeInferResponse(Buffer.from(await res.arrayBuffer()), Number(res.headers.get('inference-header-content-length')));
  assert.deepEqual(out.outputs[0]!.shape, [1, 16]);
  assert.deepEqual(Array.from(out.outputs[0]!.data as Float32Array), Array.from(data));
});

test('gzip request bodies and gzip responses', async () => {
  const n = 512;
  const body = gzipSync(JSON.stringify({ inputs: [{ name: 'IN_FP32', datatype: 'FP32', shape: [n], data: ones(n) }] }));
  const raw = await new Promise<{ status: number; enc: string | undefined; body: Buffer }>((resolve, reject) => {
    const req = httpRequest(`${t.base}/v2/models/identity_types/infer`, {
      method: 'POST', headers: { 'content-encoding': 'gzip', 'accept-encoding': 'gzip', 'content-length': body.byteLength },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, enc: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
  assert.equal(raw.status, 200);
  assert.equal(raw.enc, 'gzip');
  const json = JSON.parse(gunzipSync(raw.body).toString());
  assert.deepEqual(json.outputs[0].data, ones(n));
  const deflated = await post('/v2/models/identity_fp32/infer', (await import('node:zlib')).deflateSync(JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: ones(16) }] })), { 'content-encoding': 'deflate' });
  assert.equal(deflated.status, 200);
});

test('ORT identity model over JSON and binary (when build/models is generated)', { skip: !HAS_ONNX && 'build/models/identity_fp32.onnx not generated (npm run build-models)' }, async () => {
  const input = createTensor('INPUT0', 'FP32', [2, 16], ones(32));
  for (const binary of [false, true]) {
    const enc = encodeInferRequest({ inputs: [input], parameters: { binary_data_output: binary } }, { binary });
    const res = await post('/v2/models/onnx_identity/infer', enc.body, binary ? { 'inference-header-content-length': String(enc.headerLength) } : {});
    assert.equal(res.status, 200);
    const hl = res.headers.get('inference-header-content-length');
    const out = decodeInferResponse(Buffer.from(await res.arrayBuffer()), hl === null ? undefined : Number(hl));
    assert.deepEqual(Array.from(out.outputs[0]!.data as Float32Array), ones(32));
  }
});
test('statistics for all models and per model/version', async () => {
  const all = await (await fetch(`${t.base}/v2/models/stats`)).json().then(loose);
  assert.ok(all.model_stats.some((s: { name: string }) => s.name === 'identity_fp32'));
  const one = await (await fetch(`${t.base}/v2/models/identity_fp32/versions/1/stats`)).json().then(loose);
  assert.equal(one.model_stats.length, 1);
  assert.ok(one.model_stats[0].inference_stats.success.count >= 1);
  assert.equal((await fetch(`${t.base}/v2/models/nope/stats`)).status, 404);
});

test('repository: index, unload, load, config override, file: upload, unload_dependents', async () => {
  const index = await (await post('/v2/repository/index', { ready: true })).json().then(loose);
  assert.ok(index.some((e: { name: string; state: string }) => e.name === 'identity_fp32' && e.state === 'READY'));
  assert.equal((await post('/v2/repository/models/identity_fp32/unload', { parameters: { unload_dependents: true } })).status, 200);
  assert.equal((await fetch(`${t.base}/v2/models/identity_fp32/ready`)).status, 400);
  const gone = await post('/v2/models/identity_fp32/infer', { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: ones(16) }] });
  assert.ok(gone.status === 404 || gone.status === 503, `unloaded model answers ${gone.status}`);
  assert.equal((await post('/v2/repository/models/identity_fp32/load', {})).status, 200);
  assert.equal((await fetch(`${t.base}/v2/models/identity_fp32/ready`)).status, 200);
  // config override: same model, max_batch_size 4
  const config = JSON.stringify({ name: 'identity_fp32', backend: 'identity', max_batch_size: 4,
    input: [{ name: 'INPUT0', data_type: 'TYPE_FP32', dims: [16] }], output: [{ name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [16] }] });
  assert.equal((await post('/v2/repository/some_repo/models/identity_fp32/load', { parameters: { config } })).status, 200);
  assert.equal((await (await fetch(`${t.base}/v2/models/identity_fp32/config`)).json().then(loose)).max_batch_size, 4);
  // a new model from uploaded files
  const upConfig = JSON.stringify({ name: 'uploaded', backend: 'identity', max_batch_size: 0,
    input: [{ name: 'A', data_type: 'TYPE_INT32', dims: [2] }], output: [{ name: 'B', data_type: 'TYPE_INT32', dims: [2] }] });
  const up = await post('/v2/repository/models/uploaded/load', { parameters: { config: upConfig, 'file:1/model.identity': Buffer.from('x').toString('base64') } });
  assert.equal(up.status, 200, await up.clone().text());
  const r = await post('/v2/models/uploaded/infer', { inputs: [{ name: 'A', datatype: 'INT32', shape: [2], data: [4, 5] }] });
  assert.deepEqual((await r.json().then(loose)).outputs[0].data, [4, 5]);
  assert.equal((await post('/v2/repository/models/uploaded/unload', {})).status, 200);
  // restore the original config for the other tests
  assert.equal((await post('/v2/repository/models/identity_fp32/load', {})).status, 200);
});

test('logging settings: read, update, validate', async () => {
  const before = await (await fetch(`${t.base}/v2/logging`)).json().then(loose);
  assert.equal(typeof before.log_verbose_level, 'number');
  const res = await post('/v2/logging', { log_verbose_level: 2, log_format: 'ISO8601' });
  assert.equal(res.status, 200);
  const now = await res.json().then(loose);
  assert.equal(now.log_verbose_level, 2);
  assert.equal(now.log_format, 'ISO8601');
  assert.equal((await (await fetch(`${t.base}/v2/logging`)).json().then(loose)).log_verbose_level, 2);
  await post('/v2/logging', { log_verbose_level: before.log_verbose_level, log_format: before.log_format });
});

test('trace settings are stored and echoed, globally and per model', async () => {
  const g = await (await post('/v2/trace/setting', { trace_rate: '10', trace_level: ['TIMESTAMPS'] })).json().then(loose);
  assert.equal(g.trace_rate, '10');
  assert.deepEqual(g.trace_level, ['TIMESTAMPS']);
  const m = await (await post('/v2/models/identity_fp32/trace/setting', { trace_count: 5 })).json().then(loose);
  assert.equal(m.trace_count, '5');
  assert.equal(m.trace_rate, '10', 'model settings inherit the global ones');
  assert.equal((await (await fetch(`${t.base}/v2/trace/setting`)).json().then(loose)).trace_count, '-1');
  const cleared = await (await post('/v2/models/identity_fp32/trace/setting', { trace_count: null })).json().then(loose);
  assert.equal(cleared.trace_count, '-1');
  assert.equal((await fetch(`${t.base}/v2/models/nope/trace/setting`)).status, 404);
});

test('shared memory registration says how to enable it, CUDA register too; status lists nothing', async () => {
  const s = await fetch(`${t.base}/v2/systemsharedmemory/status`);
  assert.equal(s.status, 200);
  assert.deepEqual(await s.json(), []);
  const r = await post('/v2/systemsharedmemory/region/r/register', { key: '/r', byte_size: 4 });
  assert.equal(r.status, 501);
  assert.match((await r.json().then(loose)).error, /^Client shared memory is disabled.*--allow-client-shm=true/);
  const c = await post('/v2/cudasharedmemory/region/r/register', { raw_handle: { b64: '' }, device_id: 0, byte_size: 4 });
  assert.equal(c.status, 501);
  assert.match((await c.json().then(loose)).error, /^Client shared memory is disabled/);
});

function sseEvents(text: string): { event?: string; data: string }[] {
  return text.split('\n\n').filter((b) => b.trim()).map((block) => {
    const ev: { event?: string; data: string } = { data: '' };
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) ev.event = line.slice(7);
      else if (line.startsWith('data: ')) ev.data += line.slice(6);
    }
    return ev;
  });
}

test('decoupled model streams over SSE on /infer, with an end event', async () => {
  const res = await post('/v2/models/streamer/infer', { inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [4] }] }, { accept: 'text/event-stream' });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /text\/event-stream/);
  const events = sseEvents(await res.text());
  assert.deepEqual(events.filter((e) => !e.event).map((e) => JSON.parse(e.data).outputs[0].data[0]), [0, 1, 2, 3]);
  assert.equal(events.at(-1)!.event, 'end');
});

test('unary /infer on a multi-response decoupled model is a 400 pointing at the stream', async () => {
  const res = await post('/v2/models/streamer/infer', { inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [3] }] });
  assert.equal(res.status, 400);
  assert.match((await res.json().then(loose)).error, /more than one response.*text\/event-stream/);
  const one = await post('/v2/models/streamer/infer', { inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [1] }] });
  assert.equal(one.status, 200, 'a single response is fine unary');
  assert.deepEqual((await one.json().then(loose)).outputs[0].data, [0]);
});

test('an error after the first event arrives as an {"error"} event', async () => {
  const res = await post('/v2/models/streamer/infer', { inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [-1] }] }, { accept: 'text/event-stream' });
  assert.equal(res.status, 200);
  const events = sseEvents(await res.text());
  assert.equal(events.length, 2);
  assert.match(JSON.parse(events[1]!.data).error, /negative N/);
  const early = await post('/v2/models/streamer/infer', { inputs: [{ name: 'N', datatype: 'FP32', shape: [1], data: [1] }] }, { accept: 'text/event-stream' });
  assert.equal(early.status, 400, 'an error before any event keeps its HTTP status');
});

test('generate and generate_stream', async () => {
  const g = await post('/v2/models/gen/generate', { id: 'g1', text_input: 'hello' });
  assert.equal(g.status, 200);
  assert.deepEqual(await g.json().then(loose), { model_name: 'gen', model_version: '1', id: 'g1', text_output: 'hello' });
  const s = await post('/v2/models/streamer/generate_stream', { N: 3 });
  assert.equal(s.status, 200);
  const events = sseEvents(await s.text());
  assert.deepEqual(events.map((e) => JSON.parse(e.data).OUT), [0, 1, 2]);
  const many = await post('/v2/models/streamer/generate', { N: 2 });
  assert.equal(many.status, 400);
});

test('a client disconnect cancels the request in the server', async () => {
  const records: RequestRecord[] = [];
  const off = t.server.addListener({ onRequest: (r) => { if (r.model === 'slow') records.push(r); } });
  try {
    const ac = new AbortController();
    const started = performance.now();
    const pending = post('/v2/models/slow/infer', { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1], data: [1] }] }, {})
      .catch((e) => e);
    void pending;
    const req = fetch(`${t.base}/v2/models/slow/infer`, {
      method: 'POST', signal: ac.signal,
      body: JSON.stringify({ id: 'gone', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1], data: [1] }] }),
    }).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 200));
    ac.abort();
    assert.ok((await req) instanceof Error);
    while (records.length === 0 && performance.now() - started < 2500) await new Promise((r) => setTimeout(r, 20));
    assert.ok(records.length >= 1, 'the disconnected request finished early');
    assert.equal(records[0]!.success, false);
    assert.equal(records[0]!.reason, 'CANCELED');
    assert.ok(performance.now() - started < 2500, 'cancelled long before the 3 s execution would end');
    const other = await pending;
    assert.equal((other as Response).status, 200, 'the other request to the same model still completes');
  } finally {
    off();
  }
});
