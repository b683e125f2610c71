/**
 * Access control attacks (--http-restricted-api, --grpc-restricted-protocol): a real server over
 * an on-disk repository, real HTTP and gRPC front ends on 127.0.0.1, real clients. Every category
 * is restricted with its own header and secret; each is tried with no header, with a wrong value
 * (another category's secret, a near miss) and with the right one. Refusals must carry Triton's
 * words and statuses (HTTP 403, gRPC UNAVAILABLE), change nothing on the server, and never echo a
 * secret. A second server restricts only model-repository: everything else stays open.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { credentials, loadPackageDefinition, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { startGrpcServer, loadProtos, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { startHttpServer, type HttpServerHandle } from '../../src/frontend/http/index.js';
import { parseRestrictions, RESTRICTED_CATEGORIES, type RestrictedCategory } from '../../src/frontend/restrict/index.js';
import { createSharedMemoryRegistry, type SharedMemoryRegistry } from '../../src/frontend/shm/index.js';
import { serve } from '../../src/cli/serve.js';
import { Errors } from '../../src/errors.js';
import { getLogSettings, setLogSink } from '../../src/logger.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { ECHO_CONFIG } from '../helpers/model-configs.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { spawnServe } from './spawn-serve.js';

setLogSink(() => {}); // the server logs its start and refusals; the assertions are on the wire

const TAG = `${process.pid}-${Date.now()}`;
const secretOf = (c: RestrictedCategory) => `S3CRET-${c}-${TAG}`;
const httpHeaderOf = (c: RestrictedCategory) => `X-${c}-Key`;
const grpcKeyOf = (c: RestrictedCategory) => `${c}-key`;
const ALL_SECRETS = RESTRICTED_CATEGORIES.map(secretOf);
/** A category whose secret is used as the wrong value for `c`: valid elsewhere, not here. */
const other = (c: RestrictedCategory): RestrictedCategory => (c === 'health' ? 'inference' : 'health');

interface HttpResult { status: number; body: string }

function http(port: number, method: string, path: string, opts: { headers?: Record<string, string | string[]>; body?: string | Buffer } = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

type Client = Record<string, (req: unknown, md: Metadata, cb: (e: ServiceError | null, r: any) => void) => void> & { close(): void };

function grpcClients(port: number): { inference: Client; health: Client } {
  const pkg = loadPackageDefinition(loadProtos()) as any;
  const addr = `127.0.0.1:${port}`;
  return {
    inference: new pkg.inference.GRPCInferenceService(addr, credentials.createInsecure()),
    health: new pkg.grpc.health.v1.Health(addr, credentials.createInsecure()),
  };
}

function metadata(entries: Record<string, string | string[]> = {}): Metadata {
  const md = new Metadata();
  for (const [k, v] of Object.entries(entries)) for (const one of [v].flat()) md.add(k, one);
  return md;
}

async function rpc(client: Client, method: string, req: unknown, md = metadata()): Promise<{ error?: ServiceError; res?: any }> {
  return new Promise((resolve) => {
    client[method]!.call(client, req, md, (error, res) => resolve(error ? { error } : { res }));
  });
}

const INFER_BODY = JSON.stringify({ inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 2], data: [1, 2] }] });
const HTTP_CASES: Record<RestrictedCategory, { method: string; path: string; body?: string; ok: number }> = {
  health: { method: 'GET', path: '/v2/health/ready', ok: 200 },
  metadata: { method: 'GET', path: '/v2/models/echo', ok: 200 },
  inference: { method: 'POST', path: '/v2/models/echo/infer', body: INFER_BODY, ok: 200 },
  'shared-memory': { method: 'GET', path: '/v2/systemsharedmemory/status', ok: 200 },
  'model-config': { method: 'GET', path: '/v2/models/echo/config', ok: 200 },
  'model-repository': { method: 'POST', path: '/v2/repository/index', body: '{}', ok: 200 },
  statistics: { method: 'GET', path: '/v2/models/echo/stats', ok: 200 },
  trace: { method: 'GET', path: '/v2/trace/setting', ok: 200 },
  logging: { method: 'GET', path: '/v2/logging', ok: 200 },
};

const GRPC_CASES: Record<RestrictedCategory, { method: string; req: unknown }> = {
  health: { method: 'ServerReady', req: {} },
  metadata: { method: 'ModelMetadata', req: { name: 'echo' } },
  inference: { method: 'ModelInfer', req: { model_name: 'echo', inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 2] }], raw_input_contents: [Buffer.from(Int32Array.of(1, 2).buffer)] } },
  'shared-memory': { method: 'SystemSharedMemoryStatus', req: {} },
  'model-config': { method: 'ModelConfig', req: { name: 'echo' } },
  'model-repository': { method: 'RepositoryIndex', req: {} },
  statistics: { method: 'ModelStatistics', req: { name: 'echo' } },
  trace: { method: 'TraceSetting', req: {} },
  logging: { method: 'LogSettings', req: {} },
};

interface Running { server: LocalServer; http: HttpServerHandle; grpc: GrpcServerHandle; clients: ReturnType<typeof grpcClients>; shm: SharedMemoryRegistry }

async function start(repo: TempRepo, httpFlags: string[], grpcFlags: string[]): Promise<Running> {
  const server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['echo'] });
  const shm = createSharedMemoryRegistry();
  const httpHandle = await startHttpServer(server, { port: 0, host: '127.0.0.1', sharedMemory: shm, restrictions: parseRestrictions('http-restricted-api', httpFlags) });
  const grpcHandle = await startGrpcServer(server, { port: 0, host: '127.0.0.1', sharedMemory: shm, restrictions: parseRestrictions('grpc-restricted-protocol', grpcFlags) });
  return { server, http: httpHandle, grpc: grpcHandle, clients: grpcClients(grpcHandle.port), shm };
}

async function stop(r: Running): Promise<void> {
  r.clients.inference.close();
  r.clients.health.close();
  await r.grpc.close();
  await r.http.close();
  r.shm.unregister();
  await r.server.close();
}

let repo: TempRepo;
let all: Running;
let adminOnly: Running;
const seen: string[] = [];

before(async () => {
  repo = tempRepo({ 'echo/config.pbtxt': ECHO_CONFIG, 'echo/1/.keep': '' });
  all = await start(repo,
    RESTRICTED_CATEGORIES.map((c) => `${c}:${httpHeaderOf(c)}=${secretOf(c)}`),
    RESTRICTED_CATEGORIES.map((c) => `${c}:${grpcKeyOf(c)}=${secretOf(c)}`));
  adminOnly = await start(repo, [`model-repository:X-Admin-Key=${secretOf('model-repository')}`], [`model-repository:admin-key=${secretOf('model-repository')}`]);
});

after(async () => {
  await stop(all);
  await stop(adminOnly);
  repo.remove();
  // No response of any test carried a secret.
  for (const text of seen) for (const s of ALL_SECRETS) assert.ok(!text.includes(s), `a secret leaked into a response: ${text.slice(0, 200)}`);
});

async function httpTo(r: Running, c: RestrictedCategory, headers: Record<string, string | string[]> = {}): Promise<HttpResult> {
  const k = HTTP_CASES[c];
  const res = await http(r.http.port, k.method, k.path, { headers, ...(k.body !== undefined ? { body: k.body } : {}) });
  seen.push(res.body);
  return res;
}

function assertHttpRefused(res: HttpResult, c: RestrictedCategory): void {
  assert.equal(res.status, 403, res.body);
  // Exactly Triton's body: no data of the endpoint, no secret, no hint of the value.
  assert.deepEqual(JSON.parse(res.body), { error: `This API is restricted, expecting header '${httpHeaderOf(c)}'` });
}

async function grpcTo(r: Running, c: RestrictedCategory, md: Record<string, string | string[]> = {}): Promise<{ error?: ServiceError; res?: any }> {
  const k = GRPC_CASES[c];
  const out = await rpc(r.clients.inference, k.method, k.req, metadata(md));
  seen.push(out.error ? out.error.details : JSON.stringify(out.res, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
  return out;
}

function assertGrpcRefused(out: { error?: ServiceError }, c: RestrictedCategory): void {
  assert.ok(out.error, 'expected a refusal');
  assert.equal(out.error.code, status.UNAVAILABLE);
  assert.equal(out.error.details, `This protocol is restricted, expecting header 'triton-grpc-protocol-${grpcKeyOf(c)}'`);
}

const inferCount = (s: LocalServer) => Number(s.modelStatistics('echo').model_stats[0]!.inference_stats.success.count);

for (const c of RESTRICTED_CATEGORIES) {
  test(`HTTP ${c}: no header is refused with 403 and Triton's message`, async () => {
    const before = inferCount(all.server);
    assertHttpRefused(await httpTo(all, c), c);
    assert.equal(inferCount(all.server), before, 'nothing ran');
  });
  test(`HTTP ${c}: another category's secret is refused`, async () => {
    const o = other(c);
    assertHttpRefused(await httpTo(all, c, { [httpHeaderOf(o)]: secretOf(o), [httpHeaderOf(c)]: secretOf(o) }), c);
  });
  test(`HTTP ${c}: the right header is let through`, async () => {
    const res = await httpTo(all, c, { [httpHeaderOf(c)]: secretOf(c) });
    assert.equal(res.status, HTTP_CASES[c].ok, res.body);
  });
  test(`gRPC ${c}: no metadata is refused with UNAVAILABLE and Triton's message`, async () => {
    const before = inferCount(all.server);
    assertGrpcRefused(await grpcTo(all, c), c);
    assert.equal(inferCount(all.server), before, 'nothing ran');
  });
  test(`gRPC ${c}: another category's secret is refused`, async () => {
    const o = other(c);
    assertGrpcRefused(await grpcTo(all, c, { [`triton-grpc-protocol-${grpcKeyOf(o)}`]: secretOf(o), [`triton-grpc-protocol-${grpcKeyOf(c)}`]: secretOf(o) }), c);
  });
  test(`gRPC ${c}: the right metadata is let through`, async () => {
    const out = await grpcTo(all, c, { [`triton-grpc-protocol-${grpcKeyOf(c)}`]: secretOf(c) });
    assert.equal(out.error, undefined, out.error?.details);
  });
}

// Near misses and spelling tricks.

test('HTTP: a near-miss value (prefix, suffix, other case) is refused', async () => {
  const s = secretOf('model-config');
  for (const v of [s.slice(0, -1), `${s}x`, s.toLowerCase(), `x${s}`]) assertHttpRefused(await httpTo(all, 'model-config', { [httpHeaderOf('model-config')]: v }), 'model-config');
});

test('HTTP: the header sent twice (right value and a wrong one) is refused', async () => {
  assertHttpRefused(await httpTo(all, 'statistics', { [httpHeaderOf('statistics')]: [secretOf('statistics'), 'wrong'] }), 'statistics');
});

test('HTTP: the versioned route, a query string and HEAD land in the same category and are refused', async () => {
  for (const path of ['/v2/models/echo/versions/1/config', '/v2/models/echo/config?x=1']) {
    const res = await http(all.http.port, 'GET', path);
    seen.push(res.body);
    assertHttpRefused(res, 'model-config');
  }
  const head = await http(all.http.port, 'HEAD', '/v2/health/ready');
  assert.equal(head.status, 403);
});

test('HTTP: a refused request is answered before its body is read (1 GB announced, none sent)', async () => {
  const res = await new Promise<HttpResult>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: all.http.port, method: 'POST', path: '/v2/models/echo/infer', headers: { 'content-type': 'application/json', 'content-length': String(2 ** 30) } }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (d: Buffer) => chunks.push(d));
      r.on('end', () => { req.destroy(); resolve({ status: r.statusCode ?? 0, body: Buffer.concat(chunks).toString() }); });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
  assertHttpRefused(res, 'inference');
});

test('HTTP: a gzip body to a restricted route is refused without being inflated', async () => {
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 32));
  const res = await http(all.http.port, 'POST', '/v2/models/echo/infer', { headers: { 'content-encoding': 'gzip' }, body: bomb });
  seen.push(res.body);
  assertHttpRefused(res, 'inference');
});

test('HTTP model-repository: refused unload and load change nothing, and no file is written', async () => {
  const files = () => readdirSync(repo.dir, { recursive: true }).map(String).sort();
  const before = files();
  const unload = await http(all.http.port, 'POST', '/v2/repository/models/echo/unload', { body: '{}' });
  const load = await http(all.http.port, 'POST', '/v2/repository/models/evil/load', {
    body: JSON.stringify({ parameters: { config: JSON.stringify({ name: 'evil', backend: 'identity' }), 'file:1/model.identity': Buffer.from('x').toString('base64') } }),
  });
  seen.push(unload.body, load.body);
  assertHttpRefused(unload, 'model-repository');
  assertHttpRefused(load, 'model-repository');
  assert.equal(all.server.modelReady('echo'), true, 'echo still serves');
  assert.equal(all.server.modelReady('evil'), false, 'nothing was loaded');
  assert.deepEqual(files(), before, 'the repository is untouched');
});

test('HTTP logging and trace: refused updates change no setting', async () => {
  const logBefore = getLogSettings();
  const log = await http(all.http.port, 'POST', '/v2/logging', { body: JSON.stringify({ log_verbose_level: 7, log_info: false }) });
  const traceBefore = await http(all.http.port, 'GET', '/v2/trace/setting', { headers: { [httpHeaderOf('trace')]: secretOf('trace') } });
  const trace = await http(all.http.port, 'POST', '/v2/trace/setting', { body: JSON.stringify({ trace_rate: '1', trace_level: ['TENSORS'] }) });
  const traceAfter = await http(all.http.port, 'GET', '/v2/trace/setting', { headers: { [httpHeaderOf('trace')]: secretOf('trace') } });
  seen.push(log.body, trace.body, traceBefore.body, traceAfter.body);
  assertHttpRefused(log, 'logging');
  assertHttpRefused(trace, 'trace');
  assert.deepEqual(getLogSettings(), logBefore);
  assert.equal(traceAfter.body, traceBefore.body);
});

test('HTTP shared-memory: a refused register registers nothing', async (t) => {
  const key = `/tributary-restrict-${TAG}`;
  writeFileSync(`/dev/shm${key}`, Buffer.alloc(64));
  t.after(() => rmSync(`/dev/shm${key}`, { force: true }));
  const res = await http(all.http.port, 'POST', '/v2/systemsharedmemory/region/r/register', { body: JSON.stringify({ key, offset: 0, byte_size: 64 }) });
  seen.push(res.body);
  assertHttpRefused(res, 'shared-memory');
  assert.deepEqual(all.shm.status(), []);
});

test('gRPC: the key without the triton-grpc-protocol- prefix is refused', async () => {
  assertGrpcRefused(await grpcTo(all, 'metadata', { [grpcKeyOf('metadata')]: secretOf('metadata') }), 'metadata');
});

test('gRPC: a near-miss value and a repeated key are refused', async () => {
  const key = `triton-grpc-protocol-${grpcKeyOf('statistics')}`;
  assertGrpcRefused(await grpcTo(all, 'statistics', { [key]: `${secretOf('statistics')} ` }), 'statistics');
  assertGrpcRefused(await grpcTo(all, 'statistics', { [key]: [secretOf('statistics'), 'x'] }), 'statistics');
});

test('gRPC health: grpc.health.v1 Check is health, refused without the header', async () => {
  const refused = await rpc(all.clients.health, 'Check', {});
  assertGrpcRefused(refused, 'health');
  const ok = await rpc(all.clients.health, 'Check', {}, metadata({ [`triton-grpc-protocol-${grpcKeyOf('health')}`]: secretOf('health') }));
  assert.equal(ok.res?.status, 'SERVING');
});

test('gRPC inference: ModelStreamInfer is refused with the status, nothing runs', async () => {
  const before = inferCount(all.server);
  const call = (all.clients.inference as any).ModelStreamInfer(metadata()) as NodeJS.EventEmitter & { write(m: unknown): void; end(): void };
  const got: unknown[] = [];
  call.on('data', (m: unknown) => got.push(m));
  const ended = new Promise<ServiceError>((resolve) => call.on('error', resolve));
  call.write(GRPC_CASES.inference.req);
  call.end();
  const e = await ended;
  assertGrpcRefused({ error: e }, 'inference');
  assert.deepEqual(got, []);
  assert.equal(inferCount(all.server), before);
});

test('gRPC model-repository and logging: refused unload and settings change nothing', async () => {
  assertGrpcRefused(await rpc(all.clients.inference, 'RepositoryModelUnload', { model_name: 'echo' }), 'model-repository');
  assert.equal(all.server.modelReady('echo'), true);
  const before = getLogSettings();
  assertGrpcRefused(await rpc(all.clients.inference, 'LogSettings', { settings: { log_verbose_level: { uint32_param: 9 } } }), 'logging');
  assert.deepEqual(getLogSettings(), before);
});

// Only what is listed is restricted.

test('HTTP: with only model-repository restricted, every other category answers without a header', async () => {
  for (const c of RESTRICTED_CATEGORIES) {
    const res = await httpTo(adminOnly, c);
    if (c === 'model-repository') assert.equal(res.status, 403);
    else assert.equal(res.status, HTTP_CASES[c].ok, `${c}: ${res.body}`);
  }
});

test('gRPC: with only model-repository restricted, every other category answers without metadata', async () => {
  for (const c of RESTRICTED_CATEGORIES) {
    const out = await grpcTo(adminOnly, c);
    if (c === 'model-repository') assert.equal(out.error?.code, status.UNAVAILABLE);
    else assert.equal(out.error, undefined, `${c}: ${out.error?.details}`);
  }
  assert.equal((await rpc(adminOnly.clients.health, 'Check', {})).res?.status, 'SERVING');
});

// Bad flags stop `tributary serve` before anything listens.

for (const [name, argv, match] of [
  ['an unknown category', ['--http-restricted-api', 'health,admin:k=v'], /--http-restricted-api: unknown restricted api "admin"/],
  ['a category in two groups', ['--grpc-restricted-protocol', 'health:a=1', '--grpc-restricted-protocol', 'health:b=2'], /--grpc-restricted-protocol: restricted protocol 'health' can not be specified in multiple config groups/],
  ['a value without a header', [`--http-restricted-api=health=${secretOf('health')}`], /--http-restricted-api: expected <category>/],
] as const) {
  test(`serve refuses ${name} at start, without echoing the secret`, async () => {
    const e = await serve(['--model-repository', repo.dir, '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0', ...argv]).then(
      () => assert.fail('serve started'), (err: unknown) => err);
    assert.ok(Errors.restrictFlagInvalid.is(e), String(e));
    assert.match((e as Error).message, match);
    for (const s of ALL_SECRETS) assert.ok(!(e as Error).message.includes(s));
  });
}

// The command line wires both flags to both front ends.

test('serve --http-restricted-api / --grpc-restricted-protocol: restricted over both front ends, the rest open, no exposure warning on loopback', async () => {
  const secret = secretOf('model-repository');
  const s = await spawnServe(['--model-repository', repo.dir, '--model-control-mode', 'explicit',
    '--http-restricted-api', `model-repository:X-Admin-Key=${secret}`, '--grpc-restricted-protocol', `model-repository:admin-key=${secret}`]);
  const clients = grpcClients(s.grpcPort);
  try {
    const refused = await http(s.httpPort, 'POST', '/v2/repository/index', { body: '{}' });
    assert.equal(refused.status, 403);
    assert.deepEqual(JSON.parse(refused.body), { error: "This API is restricted, expecting header 'X-Admin-Key'" });
    assert.equal((await http(s.httpPort, 'POST', '/v2/repository/index', { body: '{}', headers: { 'x-admin-key': secret } })).status, 200);
    assert.equal((await http(s.httpPort, 'GET', '/v2/health/ready')).status, 200);
    const g = await rpc(clients.inference, 'RepositoryIndex', {});
    assert.equal(g.error?.code, status.UNAVAILABLE);
    assert.equal(g.error?.details, "This protocol is restricted, expecting header 'triton-grpc-protocol-admin-key'");
    assert.equal((await rpc(clients.inference, 'RepositoryIndex', {}, metadata({ 'triton-grpc-protocol-admin-key': secret }))).error, undefined);
    assert.doesNotMatch(s.log(), /reachable over/);
    assert.ok(!s.log().includes(secret), 'the secret is not logged');
  } finally {
    clients.inference.close();
    clients.health.close();
    await s.stop();
  }
});
