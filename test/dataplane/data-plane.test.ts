/**
 * The data plane's rules, once for both front ends: one trace-settings store that HTTP and gRPC
 * both read and change, the same refusals on both, and Triton's load parameters read from a
 * protocol-neutral map. Real server (test/fixtures/http), real front ends on 127.0.0.1:0.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { createDataPlane, type DataPlane } from '../../src/dataplane/index.js';
import { startHttpServer, type HttpServerHandle } from '../../src/frontend/http/index.js';
import { startGrpcServer, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { Errors } from '../../src/errors.js';
import { startTestServer, type TestServer } from '../frontend/http/test-server.js';
import { createTestClient, type TestClient } from '../frontend/grpc/grpc-client.js';

let t: TestServer;
let plane: DataPlane;
let http: HttpServerHandle;
let grpc: GrpcServerHandle;
let client: TestClient;
let base: string;

before(async () => {
  t = await startTestServer();
  plane = createDataPlane(t.server);
  http = await startHttpServer(t.server, { port: 0, host: '127.0.0.1', dataPlane: plane });
  grpc = await startGrpcServer(t.server, { port: 0, host: '127.0.0.1', dataPlane: plane });
  client = createTestClient(grpc.port);
  base = `http://127.0.0.1:${http.port}`;
});
after(async () => {
  client.close();
  await grpc.close();
  await http.close();
  await t.close();
});

const postJson = (path: string, body: unknown) => fetch(base + path, { method: 'POST', body: JSON.stringify(body) });
const grpcTrace = async (req: object) => {
  const r = await client.call('TraceSetting', req);
  return Object.fromEntries(Object.entries(r.settings as Record<string, { value: string[] }>).map(([k, v]) => [k, v.value]));
};

test('one trace-settings store: what HTTP sets, gRPC reads, and back', async () => {
  assert.equal((await postJson('/v2/trace/setting', { trace_rate: '42', trace_level: ['TIMESTAMPS'] })).status, 200);
  const seen = await grpcTrace({});
  assert.deepEqual(seen.trace_rate, ['42']);
  assert.deepEqual(seen.trace_level, ['TIMESTAMPS']);
  await grpcTrace({ model_name: 'identity_fp32', settings: { trace_count: { value: ['3'] } } });
  const m = await (await fetch(`${base}/v2/models/identity_fp32/trace/setting`)).json() as Record<string, unknown>;
  assert.equal(m.trace_count, '3');
  assert.equal(m.trace_rate, '42', 'a model inherits the global settings');
  assert.deepEqual(plane.traceSettings({}).trace_rate, '42');
});

test('one set of trace rules: OFF stands alone and trace_mode is settable, on both front ends', async () => {
  const h = await postJson('/v2/trace/setting', { trace_level: ['OFF', 'TENSORS'] });
  assert.equal(h.status, 400);
  assert.match(((await h.json()) as { error: string }).error, /OFF cannot be combined/);
  const g = await client.call('TraceSetting', { settings: { trace_level: { value: ['OFF', 'TENSORS'] } } }).catch((e) => e);
  assert.equal(g.code, status.INVALID_ARGUMENT);
  assert.match(g.details, /OFF cannot be combined/);
  assert.equal(((await (await postJson('/v2/trace/setting', { trace_mode: 'opentelemetry' })).json()) as { trace_mode: string }).trace_mode, 'opentelemetry');
  assert.deepEqual((await grpcTrace({ settings: { trace_mode: { value: ['triton'] } } })).trace_mode, ['triton']);
  const bad = await client.call('TraceSetting', { settings: { trace_mode: { value: ['zipkin'] } } }).catch((e) => e);
  assert.equal(bad.code, status.INVALID_ARGUMENT);
  const unknownModel = await client.call('TraceSetting', { model_name: 'nope' }).catch((e) => e);
  assert.equal(unknownModel.code, status.NOT_FOUND);
});

test('a refused trace patch changes nothing (checked whole before any setting is applied)', () => {
  const before = plane.traceSettings({});
  assert.throws(() => plane.traceSettings({}, { trace_rate: '7', trace_level: ['LOUD'] }), (e) => Errors.traceSettingInvalid.is(e));
  assert.deepEqual(plane.traceSettings({}), before);
});

test('the extension list is the same on both front ends', async () => {
  const h = await (await fetch(`${base}/v2`)).json() as { extensions: string[] };
  const g = await client.call('ServerMetadata');
  assert.deepEqual(g.extensions, h.extensions);
  assert.deepEqual(h.extensions, plane.serverMetadata().extensions);
});

test('load parameters from a neutral map: bytes or base64 for files, config must be a JSON object', async () => {
  await assert.rejects(plane.load('identity_fp32', { config: '[1]' }), (e) => Errors.loadRefused.is(e));
  await assert.rejects(plane.load('identity_fp32', { config: '{name' }), (e) => Errors.loadRefused.is(e));
  await assert.rejects(plane.load('identity_fp32', { 'file:1/x': 'not base64!' , config: '{}' }), (e) => Errors.loadParameterInvalid.is(e));
  await assert.rejects(plane.load('identity_fp32', { 'file:1/x': new Uint8Array([1]) }), /need a 'config' parameter/);
  await assert.rejects(plane.unload('identity_fp32', { unload_dependents: 'yes' }), (e) => Errors.loadParameterInvalid.is(e));
});

test('log settings: the same refusals over both front ends', async () => {
  const h = await postJson('/v2/logging', { log_info: 'yes' });
  assert.equal(h.status, 400);
  const g = await client.call('LogSettings', { settings: { log_info: { string_param: 'yes' } } }).catch((e) => e);
  assert.equal(g.code, status.INVALID_ARGUMENT);
  assert.equal(((await h.json()) as { error: string }).error, g.details);
});

test('HTTP schemas refuse a body of the wrong shape before the handler, naming the body', async () => {
  const r = await postJson('/v2/repository/index', { ready: 'yes' });
  assert.equal(r.status, 400);
  assert.match(((await r.json()) as { error: string }).error, /^repository index: body\/ready must be boolean/);
  // A missing field is the data plane's to name, in Triton's words; a field of the wrong type is the schema's.
  const reg = await postJson('/v2/systemsharedmemory/region/r/register', { key: 5, offset: 0, byte_size: 16 });
  assert.equal(reg.status, 400);
  assert.match(((await reg.json()) as { error: string }).error, /^shared memory register request: body\/key must be string/);
});
