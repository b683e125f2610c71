/**
 * The http2 gRPC front end end to end: a real node:http2 server on 127.0.0.1:0, called by the
 * grpc-js client the grpc-js front end's tests use (so both speak the same wire), over the fake
 * in-process server (scripted models) and over the real server with a decoupled TypeScript model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { fileURLToPath } from 'node:url';
import { status } from '@grpc/grpc-js';
import { startGrpcH2Server } from '../../../src/frontend/grpc-h2/index.js';
import { createServer } from '../../../src/server/index.js';
import { createFakeServer } from '../grpc/fake-server.js';
import { createTestClient } from '../grpc/grpc-client.js';
import { until } from '../grpc/harness.js';

const int32 = (n: number) => Buffer.from(Int32Array.of(n).buffer);

async function start(options: { maxMessageBytes?: number } = {}) {
  const fake = createFakeServer();
  const grpc = await startGrpcH2Server(fake, { port: 0, host: '127.0.0.1', ...options });
  const client = createTestClient(grpc.port);
  return { fake, grpc, client, async close() { client.close(); await grpc.close(); } };
}

test('ModelInfer: raw contents, parameters and requested outputs round-trip', async (t) => {
  const h = await start();
  t.after(() => h.close());
  const res = await h.client.call('ModelInfer', {
    model_name: 'echo', model_version: '1', id: 'r1',
    parameters: { priority: { uint64_param: 2 }, custom: { string_param: 'x' } },
    inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1] }, { name: 'INPUT1', datatype: 'INT32', shape: [1] }],
    outputs: [{ name: 'OUTPUT1' }],
    raw_input_contents: [int32(5), int32(-9)],
  });
  assert.equal(res.id, 'r1');
  assert.deepEqual(res.outputs.map((o: any) => [o.name, o.datatype, o.shape]), [['OUTPUT1', 'INT32', ['1']]]);
  assert.equal(Buffer.from(res.raw_output_contents[0]).readInt32LE(0), -9);
  assert.deepEqual(res.parameters.echoed, { int64_param: '1', parameter_choice: 'int64_param' });
  const req = h.fake.requests[0]!;
  assert.equal(req.priority, 2);
  assert.deepEqual(req.parameters, { custom: 'x' });
});

test('other RPCs run the grpc-js front end handlers; unknown methods are UNIMPLEMENTED', async (t) => {
  const h = await start();
  t.after(() => h.close());
  assert.deepEqual(await h.client.call('ServerLive'), { live: true });
  assert.deepEqual(await h.client.call('Health.Check', {}), { status: 'SERVING' });
  assert.equal((await h.client.call('ModelConfig', { name: 'repeat' })).config.model_transaction_policy.decoupled, true);
  await h.client.call('RepositoryModelLoad', { model_name: 'm' });
  assert.deepEqual(h.fake.loads, [{ name: 'm', options: {} }]);
  const e = await h.client.call('ModelMetadata', { name: 'ghost' }).catch((err) => err);
  assert.equal(e.code, status.NOT_FOUND);
  assert.match(e.details, /unknown model: 'ghost'/);
  const cuda = await h.client.call('CudaSharedMemoryStatus', {}).catch((err) => err);
  assert.equal(cuda.code, status.UNIMPLEMENTED);

  const session = http2.connect(`http://127.0.0.1:${h.grpc.port}`);
  t.after(() => session.close());
  const raw = (path: string, headers: Record<string, string> = {}, body = Buffer.from([0, 0, 0, 0, 0])) => new Promise<Record<string, unknown>>((resolve) => {
    const req = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', ...headers });
    let got: Record<string, unknown> = {};
    req.on('response', (hd) => { got = { ...hd }; });
    req.on('trailers', (tr) => { got = { ...got, ...tr }; });
    req.on('data', () => {});
    req.on('end', () => resolve(got));
    req.end(body);
  });
  const unknown = await raw('/inference.GRPCInferenceService/Nope');
  assert.equal(unknown['grpc-status'], String(status.UNIMPLEMENTED));
  assert.match(String(unknown['grpc-message']), /unknown method \/inference.GRPCInferenceService\/Nope/);
  const badTimeout = await raw('/inference.GRPCInferenceService/ServerLive', { 'grpc-timeout': '12x' });
  assert.equal(badTimeout['grpc-status'], String(status.OUT_OF_RANGE));
  const compressed = await raw('/inference.GRPCInferenceService/ServerLive', { 'grpc-encoding': 'gzip' }, Buffer.from([1, 0, 0, 0, 0]));
  assert.equal(compressed['grpc-status'], String(status.UNIMPLEMENTED));
  assert.match(String(compressed['grpc-message']), /compressed messages are not supported \(grpc-encoding 'gzip'\)/);
  const notGrpc = await raw('/inference.GRPCInferenceService/ServerLive', { 'content-type': 'application/json' });
  assert.equal(notGrpc[':status'], 415);
});

test('a request split into 1-byte chunks decodes the same; a body cut mid-message is an error', async (t) => {
  const h = await start();
  t.after(() => h.close());
  const session = http2.connect(`http://127.0.0.1:${h.grpc.port}`);
  t.after(() => session.close());
  const proto = (await import('../../../src/frontend/grpc/index.js')).loadProtos() as any;
  const body: Buffer = proto['inference.GRPCInferenceService'].ModelInfer.requestSerialize({
    model_name: 'echo', inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1] }], raw_input_contents: [int32(77)],
  });
  const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, body.length]), body]);
  const send = (bytes: Buffer) => new Promise<{ trailers: Record<string, unknown>; data: Buffer }>((resolve) => {
    const req = session.request({ ':method': 'POST', ':path': '/inference.GRPCInferenceService/ModelInfer', 'content-type': 'application/grpc', te: 'trailers' });
    const chunks: Buffer[] = [];
    let trailers: Record<string, unknown> = {};
    req.on('response', (hd) => { trailers = { ...hd }; });
    req.on('trailers', (tr) => { trailers = { ...tr }; });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve({ trailers, data: Buffer.concat(chunks) }));
    // One HTTP/2 DATA frame per byte: every split point of header and payload is crossed.
    let i = 0;
    const next = () => { if (i < bytes.length) req.write(bytes.subarray(i, ++i), next); else req.end(); };
    next();
  });
  const ok = await send(framed);
  assert.equal(ok.trailers['grpc-status'], '0');
  const res = proto['inference.GRPCInferenceService'].ModelInfer.responseDeserialize(ok.data.subarray(5));
  assert.equal(Buffer.from(res.raw_output_contents[0]).readInt32LE(0), 77);
  const cut = await send(framed.subarray(0, framed.length - 2));
  assert.equal(cut.trailers['grpc-status'], String(status.INTERNAL));
  assert.match(String(cut.trailers['grpc-message']), /ended in the middle of a message/);
});

test('errors map through the status table; non-ASCII messages survive percent-encoding', async (t) => {
  const h = await start();
  t.after(() => h.close());
  const err = (req: object) => h.client.call('ModelInfer', req).catch((e) => e);
  const fail = await err({ model_name: 'fail', inputs: [] });
  assert.equal(fail.code, status.INTERNAL);
  assert.equal(fail.details, "model 'fail': boom");
  const bad = await err({ model_name: 'echo', inputs: [{ name: 'IN', datatype: 'FP32', shape: [2] }], raw_input_contents: [Buffer.alloc(3)] });
  assert.equal(bad.code, status.INVALID_ARGUMENT);
  assert.match(bad.details, /model 'echo': tensor 'IN': unexpected byte size 3/);
  const ghost = await err({ model_name: 'gh\u00f6st 100%', inputs: [] });
  assert.equal(ghost.code, status.NOT_FOUND);
  assert.match(ghost.details, /unknown model: 'gh\u00f6st 100%'/);
  const decoupled = await err({ model_name: 'repeat', inputs: [{ name: 'IN', datatype: 'INT32', shape: [1] }], raw_input_contents: [int32(1)] });
  assert.equal(decoupled.code, status.UNIMPLEMENTED);
});

test('deadline: the request carries it, and when it passes the call ends DEADLINE_EXCEEDED and the request is cancelled', async (t) => {
  const h = await start();
  t.after(() => h.close());
  const before = performance.now();
  await new Promise((resolve) => h.client.inference.ModelInfer({ model_name: 'echo', inputs: [] }, { deadline: Date.now() + 5000 }, resolve));
  const d = h.fake.requests[0]!.deadline!;
  assert.ok(d > before + 4000 && d < performance.now() + 5000, `deadline ${d - before} ms ahead`);

  const e: any = await new Promise((resolve) => h.client.inference.ModelInfer({ model_name: 'hang', inputs: [] }, { deadline: Date.now() + 100 }, resolve));
  assert.equal(e.code, status.DEADLINE_EXCEEDED);
  await until(() => h.fake.cancelled === 1);
});

test('maxMessageBytes bounds what the server receives and what it sends', async (t) => {
  const h = await start({ maxMessageBytes: 1024 });
  t.after(() => h.close());
  const big = await h.client.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'IN', datatype: 'UINT8', shape: [4096] }], raw_input_contents: [Buffer.alloc(4096)] }).catch((e) => e);
  assert.equal(big.code, status.RESOURCE_EXHAUSTED);
  assert.match(big.details, /Received message larger than max \(\d+ vs\. 1024\)/);
  // A request of exactly 1024 bytes fits; its echo (the same data, plus model_version and the
  // longer output name) does not.
  const proto = (await import('../../../src/frontend/grpc/index.js')).loadProtos() as any;
  const req = (n: number) => ({ model_name: 'echo', inputs: [{ name: 'INPUT0', datatype: 'UINT8', shape: [n] }], raw_input_contents: [Buffer.alloc(n)] });
  let n = 900;
  while (proto['inference.GRPCInferenceService'].ModelInfer.requestSerialize(req(n + 1)).length <= 1024) n++;
  const out = await h.client.call('ModelInfer', req(n)).catch((e) => e);
  assert.equal(out.code, status.RESOURCE_EXHAUSTED);
  assert.match(out.details, /Sent message larger than max/);
});

test('stream: many requests in flight, errors in-stream, cancel cancels every in-flight request', async (t) => {
  const h = await start();
  t.after(() => h.close());
  const call = h.client.inference.ModelStreamInfer();
  call.on('error', () => {});
  const got: any[] = [];
  call.on('data', (m: any) => got.push(m));
  call.write({ model_name: 'repeat', id: 'a', inputs: [{ name: 'IN', datatype: 'INT32', shape: [1] }], raw_input_contents: [int32(2)], parameters: { triton_enable_empty_final_response: { bool_param: true } } });
  call.write({ model_name: 'fail', id: 'f', inputs: [] });
  await until(() => got.length === 4);
  const a = got.filter((m) => m.infer_response.id === 'a');
  assert.deepEqual(a.map((m) => m.infer_response.parameters.triton_final_response.bool_param), [false, false, true]);
  assert.equal(got.find((m) => m.infer_response.id === 'f').error_message, "model 'fail': boom");
  call.write({ model_name: 'hang', id: 'h1', inputs: [] });
  call.write({ model_name: 'hang', id: 'h2', inputs: [] });
  await until(() => h.fake.requests.length === 4);
  call.cancel();
  await until(() => h.fake.cancelled === 2);
});

test('stream: a real decoupled TypeScript model streams N responses, then ends when the client half-closes', async (t) => {
  const server = await createServer({ modelRepository: fileURLToPath(new URL('../../fixtures/grpc', import.meta.url)) });
  const grpc = await startGrpcH2Server(server, { port: 0, host: '127.0.0.1' });
  const client = createTestClient(grpc.port);
  t.after(async () => { client.close(); await grpc.close(); await server.close(); });
  const call = client.inference.ModelStreamInfer();
  const got: any[] = [];
  call.on('data', (m: any) => got.push(m));
  const ended = new Promise((resolve) => call.on('end', resolve));
  const statusSeen = new Promise<any>((resolve) => call.on('status', resolve));
  call.write({ model_name: 'streamer', id: 's', inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }], raw_input_contents: [int32(5)], parameters: { triton_enable_empty_final_response: { bool_param: true } } });
  call.end();
  await ended;
  assert.equal((await statusSeen).code, status.OK);
  assert.ok(got.every((m) => m.error_message === ''), got.map((m) => m.error_message).join());
  const values = got.filter((m) => m.infer_response.raw_output_contents.length > 0).map((m) => Buffer.from(m.infer_response.raw_output_contents[0]).readInt32LE(0));
  assert.deepEqual(values, [0, 1, 2, 3, 4]);
  assert.equal(got.at(-1).infer_response.parameters.triton_final_response.bool_param, true);
});
