import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildHttpApp } from '../../../src/frontend/http/index.js';
import { loadProtos } from '../../../src/frontend/grpc/index.js';
import { GRPC_METHOD_CATEGORY, GRPC_STREAMING_METHODS, httpRouteCategory, restrictGrpcHandlers } from '../../../src/frontend/restrict/index.js';
import { createServer } from '../../../src/server/index.js';
import { tempRepo } from '../../helpers/temp-repo.js';
import { Errors } from '../../../src/errors.js';

test('HTTP route patterns map to Triton categories', () => {
  const cases: [string, string | undefined][] = [
    ['/v2', 'metadata'], ['/v2/health/live', 'health'], ['/v2/health/ready', 'health'],
    ['/v2/models/:model', 'metadata'], ['/v2/models/:model/versions/:version', 'metadata'],
    ['/v2/models/:model/ready', 'health'], ['/v2/models/:model/versions/:version/ready', 'health'],
    ['/v2/models/:model/infer', 'inference'], ['/v2/models/:model/versions/:version/generate_stream', 'inference'],
    ['/v2/models/:model/generate', 'inference'], ['/v2/models/:model/config', 'model-config'],
    ['/v2/models/:model/stats', 'statistics'], ['/v2/models/stats', 'statistics'],
    ['/v2/models/:model/trace/setting', 'trace'], ['/v2/trace/setting', 'trace'], ['/v2/logging', 'logging'],
    ['/v2/repository/index', 'model-repository'], ['/v2/repository/:repo/models/:model/load', 'model-repository'],
    ['/v2/systemsharedmemory/region/:region/register', 'shared-memory'], ['/v2/cudasharedmemory/status', 'shared-memory'],
    ['/v2/models/:model/unknown', undefined], ['/metrics', undefined], ['/v2/', undefined],
  ];
  for (const [pattern, category] of cases) assert.equal(httpRouteCategory(pattern), category, pattern);
});

test('every route the HTTP front end registers has a category (building the app would throw otherwise)', async (t) => {
  const repo = tempRepo();
  const server = await createServer({ modelRepository: repo.dir });
  t.after(async () => { await server.close(); repo.remove(); });
  const app = buildHttpApp(server);
  await app.ready();
  for (const [method, url] of [['GET', '/v2'], ['POST', '/v2/models/:model/infer'], ['POST', '/v2/repository/models/:model/load'], ['GET', '/v2/logging']] as const) {
    assert.ok(app.hasRoute({ method, url }), `${method} ${url}`);
  }
  await app.close();
});

test('an HTTP route without a category stops the app from being built', async (t) => {
  const repo = tempRepo();
  const server = await createServer({ modelRepository: repo.dir });
  t.after(async () => { await server.close(); repo.remove(); });
  const app = buildHttpApp(server);
  assert.throws(() => app.get('/v2/new-admin-thing', () => 'x'), { code: Errors.restrictCategoryMissing.code, message: /HTTP route GET \/v2\/new-admin-thing/ });
  await app.close();
});

test('every RPC of the .proto files has a category; only ModelStreamInfer streams', () => {
  const pd = loadProtos();
  const methods: string[] = [];
  for (const service of ['inference.GRPCInferenceService', 'grpc.health.v1.Health']) {
    for (const [name, m] of Object.entries(pd[service] as Record<string, { requestStream: boolean; responseStream: boolean }>)) {
      methods.push(name);
      assert.ok(GRPC_METHOD_CATEGORY[name], `${service}/${name} has no category`);
      assert.equal(GRPC_STREAMING_METHODS.has(name), m.requestStream || m.responseStream, name);
    }
  }
  assert.equal(GRPC_METHOD_CATEGORY.Check, 'health');
  assert.equal(methods.length, Object.keys(GRPC_METHOD_CATEGORY).length, 'no category for a method that does not exist');
});

test('a gRPC handler without a category stops the server from being built', () => {
  assert.throws(() => restrictGrpcHandlers(new Map(), { NewAdminRpc: () => {} }), { code: Errors.restrictCategoryMissing.code, message: /gRPC method NewAdminRpc/ });
});
