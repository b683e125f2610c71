/**
 * Client shared memory attacks: keys that try to make the server open something other than a
 * regular shm object directly in /dev/shm (symlinks out and in, directories, FIFOs, sockets,
 * devices, hard links, '..', absolute paths, NUL, subdirectories), over real HTTP and gRPC front
 * ends on 127.0.0.1, and the server started by the real command line with client shared memory
 * off (tritonserver's --allow-client-shm, default false). Each refusal is checked for its status
 * and words, and for what did not happen: no region registered, the sentinel files outside
 * /dev/shm and inside it unchanged, their contents and the server's own paths in no response.
 */
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { credentials, loadPackageDefinition, status, type ServiceError } from '@grpc/grpc-js';
import { startGrpcServer, loadProtos, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { startHttpServer, type HttpServerHandle } from '../../src/frontend/http/index.js';
import { createSharedMemoryRegistry, type SharedMemoryRegistry } from '../../src/frontend/shm/index.js';
import { setLogSink } from '../../src/logger.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { ECHO_CONFIG } from '../helpers/model-configs.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { spawnServe, type ServeProcess } from './spawn-serve.js';

setLogSink(() => {});

const TAG = `${process.pid}-${Date.now()}`;
const SECRET = `SHM-SENTINEL-${TAG}-${'x'.repeat(64)}`;
const INSIDE_SECRET = `SHM-INSIDE-${TAG}-${'y'.repeat(64)}`;
const SHM = '/dev/shm';
/** Every name this file creates in /dev/shm starts with this, and is removed at the end. */
const P = `tributary-atk-${TAG}`;

let base: string;
let sentinel: string;
let insideTarget: string;
let repo: TempRepo;
let server: LocalServer;
let registry: SharedMemoryRegistry;
let httpHandle: HttpServerHandle;
let grpcHandle: GrpcServerHandle;
let grpc: Record<string, (req: unknown, cb: (e: ServiceError | null, r: any) => void) => void> & { close(): void };
let socketServer: NetServer | undefined;
const created: string[] = [];

function shmEntry(name: string): string {
  const p = join(SHM, name);
  created.push(p);
  return p;
}

const snapshot = () => ({
  sentinel: readFileSync(sentinel, 'utf8'), sentinelMtime: statSync(sentinel).mtimeMs,
  inside: readFileSync(insideTarget, 'utf8'), insideMtime: statSync(insideTarget).mtimeMs,
});
let pristine: ReturnType<typeof snapshot>;

before(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tributary-shm-attack-')));
  sentinel = join(base, 'secret.txt');
  writeFileSync(sentinel, SECRET);
  insideTarget = shmEntry(`${P}-target`);
  writeFileSync(insideTarget, INSIDE_SECRET);
  pristine = snapshot();
  repo = tempRepo({ 'echo/config.pbtxt': ECHO_CONFIG, 'echo/1/.keep': '' });
  server = await createServer({ modelRepository: repo.dir, extensions: ['system_shared_memory'] });
  registry = createSharedMemoryRegistry();
  httpHandle = await startHttpServer(server, { port: 0, host: '127.0.0.1', sharedMemory: registry });
  grpcHandle = await startGrpcServer(server, { port: 0, host: '127.0.0.1', sharedMemory: registry });
  const pkg = loadPackageDefinition(loadProtos()) as any;
  grpc = new pkg.inference.GRPCInferenceService(`127.0.0.1:${grpcHandle.port}`, credentials.createInsecure());
});

after(async () => {
  grpc.close();
  await grpcHandle.close();
  await httpHandle.close();
  registry.unregister();
  await server.close();
  socketServer?.close();
  for (const p of created.reverse()) rmSync(p, { recursive: true, force: true });
  rmSync(base, { recursive: true, force: true });
  repo.remove();
});

async function post(port: number, path: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

const call = (method: string, req: unknown) => new Promise<{ error?: ServiceError; res?: any }>((resolve) => {
  grpc[method]!.call(grpc, req, (error, res) => resolve(error ? { error } : { res }));
});

// A key that got through must not make the next case fail too.
afterEach(() => registry.unregister());

/**
 * What every refused key must leave behind: nothing registered, nothing changed, nothing leaked
 * (the key the client sent may be quoted back; no other path of the server may appear).
 */
function assertNothingHappened(text: string, key = ''): void {
  assert.deepEqual(registry.status(), [], 'no region is registered');
  assert.deepEqual(snapshot(), pristine, 'the sentinels are unchanged');
  const rest = key ? text.replaceAll(key.replace(/^\//, ''), '<key>') : text;
  for (const leak of [SECRET, INSIDE_SECRET, base, realpathSync(SHM) + '/' + P]) {
    assert.ok(!rest.includes(leak), `the response holds ${leak.slice(0, 40)}...: ${text}`);
  }
}

/** Register `key` over HTTP; expect a 400 whose error matches `why`. */
async function refusedOverHttp(key: string, why: RegExp): Promise<void> {
  const r = await post(httpHandle.port, '/v2/systemsharedmemory/region/attack/register', { key, offset: 0, byte_size: 16 });
  assert.equal(r.status, 400, r.text);
  assert.match(JSON.parse(r.text).error, why);
  assertNothingHappened(r.text, key);
}

async function refusedOverGrpc(key: string, why: RegExp): Promise<void> {
  const { error } = await call('SystemSharedMemoryRegister', { name: 'attack', key, offset: 0, byte_size: 16 });
  assert.equal(error?.code, status.INVALID_ARGUMENT, error?.details);
  assert.match(error!.details, why);
  assertNothingHappened(error!.details, key);
}

test('control: a regular shm object registers and its bytes reach the model', async () => {
  const key = `/${P}-good`;
  writeFileSync(shmEntry(`${P}-good`), Buffer.from(Int32Array.of(5, 6, 7, 8).buffer));
  const reg = await post(httpHandle.port, '/v2/systemsharedmemory/region/good/register', { key, offset: 0, byte_size: 16 });
  assert.equal(reg.status, 200, reg.text);
  const infer = await post(httpHandle.port, '/v2/models/echo/infer', {
    inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 4], parameters: { shared_memory_region: 'good', shared_memory_byte_size: 16 } }],
  });
  assert.deepEqual(JSON.parse(infer.text).outputs[0].data, [5, 6, 7, 8]);
  assert.equal((await post(httpHandle.port, '/v2/systemsharedmemory/unregister', {})).status, 200);
  assert.deepEqual(registry.status(), []);
});

test('a symlink in /dev/shm to a secret file outside is refused', async () => {
  symlinkSync(sentinel, shmEntry(`${P}-link-out`));
  await refusedOverHttp(`/${P}-link-out`, /^shared memory key ".*-link-out" is refused: it leaves its directory through a symbolic link; it must name a file inside \/dev\/shm$/);
});

test('a symlink in /dev/shm to a regular file inside /dev/shm is refused too', async () => {
  symlinkSync(insideTarget, shmEntry(`${P}-link-in`));
  await refusedOverHttp(`/${P}-link-in`, /^shared memory key ".*-link-in" is refused: it is a symbolic link; it must name a file inside \/dev\/shm$/);
});

test('a directory is refused', async () => {
  mkdirSync(shmEntry(`${P}-dir`));
  await refusedOverHttp(`/${P}-dir`, /is refused: it is a directory; a key must name a regular file/);
});

test('a FIFO is refused at once (the open does not wait for a writer)', async () => {
  const fifo = shmEntry(`${P}-fifo`);
  const made = spawnSync('mkfifo', [fifo]);
  assert.equal(made.status, 0, 'mkfifo is available');
  const t0 = Date.now();
  await refusedOverHttp(`/${P}-fifo`, /is refused: it is a FIFO, not a regular file/);
  assert.ok(Date.now() - t0 < 5000);
});

test('a UNIX socket is refused', async () => {
  const path = shmEntry(`${P}-sock`);
  socketServer = createNetServer();
  await new Promise<void>((resolve) => socketServer!.listen(path, resolve));
  await refusedOverHttp(`/${P}-sock`, /is refused: it is a socket or a device/);
});

test('a character device is refused (the open never reaches a driver read)', async (t) => {
  const dev = shmEntry(`${P}-chr`);
  // mknod needs CAP_MKNOD; without it there is nothing to attack with.
  if (spawnSync('mknod', [dev, 'c', '1', '3']).status !== 0) { t.skip('mknod is not permitted here'); return; }
  await refusedOverHttp(`/${P}-chr`, /is refused: it is a character device, not a regular file/);
});

test('a hard link to a file that has another name is refused', async () => {
  linkSync(insideTarget, shmEntry(`${P}-hard`));
  await refusedOverHttp(`/${P}-hard`, /is refused: it is a hard link to a file that has another name/);
});

test("a '../' traversal to a file outside /dev/shm is refused", async () => {
  await refusedOverHttp(`/${relative(SHM, sentinel)}`, /^shared memory key "\.\.\/.*" is refused: it contains '\.\.'; it must name a file inside \/dev\/shm$/);
});

test('an absolute path (a second leading slash) is refused', async () => {
  await refusedOverHttp(`/${sentinel}`, /is refused: it is an absolute path; it must name a file inside \/dev\/shm/);
});

test('a NUL character in the key is refused', async () => {
  await refusedOverHttp(`/${P}-target\u0000/../../etc/passwd`, /is refused: it contains a NUL character/);
});

test('a file in a subdirectory of /dev/shm is refused', async () => {
  mkdirSync(shmEntry(`${P}-sub`));
  writeFileSync(join(SHM, `${P}-sub`, 'obj'), Buffer.alloc(64));
  await refusedOverHttp(`/${P}-sub/obj`, /is refused: it names a file below a subdirectory/);
});

test('a symlinked directory in /dev/shm leading outside is refused', async () => {
  symlinkSync(base, shmEntry(`${P}-linkdir`));
  await refusedOverHttp(`/${P}-linkdir/secret.txt`, /is refused: it leaves its directory through a symbolic link/);
});

test('the /dev/shm directory itself ("/" and "/.") is refused', async () => {
  await refusedOverHttp('/', /is refused: it is empty/);
  await refusedOverHttp('/.', /is refused: it is a directory/);
});

test('a key that does not exist is refused with the key, not a server path', async () => {
  const r = await post(httpHandle.port, '/v2/systemsharedmemory/region/attack/register', { key: `/${P}-missing`, offset: 0, byte_size: 16 });
  assert.equal(r.status, 400);
  assert.match(JSON.parse(r.text).error, new RegExp(`^Unable to open shared memory region: '/${P}-missing'; no such key in /dev/shm for region 'attack'`));
  assertNothingHappened(r.text);
});

test('gRPC: a symlink to a secret file outside is refused', async () => {
  symlinkSync(sentinel, shmEntry(`${P}-glink`));
  await refusedOverGrpc(`/${P}-glink`, /is refused: it leaves its directory through a symbolic link/);
});

test("gRPC: a '../' traversal is refused", async () => {
  await refusedOverGrpc(`/../${relative('/', sentinel)}`, /is refused: it contains '\.\.'/);
});

test('inference naming a region that was refused reads nothing', async () => {
  const r = await post(httpHandle.port, '/v2/models/echo/infer', {
    inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 4], parameters: { shared_memory_region: 'attack', shared_memory_byte_size: 16 } }],
  });
  assert.equal(r.status, 404);
  assert.equal(JSON.parse(r.text).error, "Unable to find shared memory region: 'attack'");
  assertNothingHappened(r.text);
});

test('with client shared memory allowed, the extension is advertised', async () => {
  const v2 = await (await fetch(`http://127.0.0.1:${httpHandle.port}/v2`)).json() as { extensions: string[] };
  assert.ok(v2.extensions.includes('system_shared_memory'));
});

// `tributary serve` without --allow-client-shm: off by default, on both front ends.

let off: ServeProcess | undefined;
let offGrpc: typeof grpc | undefined;

async function startOff(): Promise<ServeProcess> {
  if (!off) {
    off = await spawnServe(['--model-repository', repo.dir]);
    const pkg = loadPackageDefinition(loadProtos()) as any;
    offGrpc = new pkg.inference.GRPCInferenceService(`127.0.0.1:${off.grpcPort}`, credentials.createInsecure());
  }
  return off;
}
after(async () => {
  offGrpc?.close();
  await off?.stop();
});

const offCall = (method: string, req: unknown) => new Promise<{ error?: ServiceError; res?: any }>((resolve) => {
  offGrpc![method]!.call(offGrpc, req, (error, res) => resolve(error ? { error } : { res }));
});

test('serve without --allow-client-shm: HTTP register and unregister are refused (501) with how to enable it, nothing opened; status lists nothing', async () => {
  const s = await startOff();
  const key = `/${P}-offgood`;
  writeFileSync(shmEntry(`${P}-offgood`), Buffer.alloc(64));
  const r = await post(s.httpPort, '/v2/systemsharedmemory/region/r/register', { key, offset: 0, byte_size: 16 });
  assert.equal(r.status, 501, r.text);
  assert.equal(JSON.parse(r.text).error, "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.");
  const un = await post(s.httpPort, '/v2/systemsharedmemory/unregister', {});
  assert.equal(un.status, 501, un.text);
  assert.equal(JSON.parse(un.text).error, "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.");
  const cuda = await fetch(`http://127.0.0.1:${s.httpPort}/v2/cudasharedmemory/status`);
  assert.equal(cuda.status, 200);
  assert.deepEqual(await cuda.json(), []);
  const st = await fetch(`http://127.0.0.1:${s.httpPort}/v2/systemsharedmemory/status`);
  assert.equal(st.status, 200);
  assert.deepEqual(await st.json(), []);
  assertNothingHappened(r.text);
});

test('serve without --allow-client-shm: gRPC register is refused (UNIMPLEMENTED), status lists nothing', async () => {
  await startOff();
  const reg = await offCall('SystemSharedMemoryRegister', { name: 'r', key: `/${P}-target`, offset: 0, byte_size: 16 });
  assert.equal(reg.error?.code, status.UNIMPLEMENTED);
  assert.match(reg.error!.details, /^Client shared memory is disabled\. Start the server with '--allow-client-shm=true' to enable\./);
  const st = await offCall('SystemSharedMemoryStatus', {});
  assert.deepEqual(st.res, { regions: {} });
  assertNothingHappened(reg.error!.details);
});

test('serve without --allow-client-shm: a tensor placed in shared memory names a region that is not registered, on both front ends (Triton: 404)', async () => {
  const s = await startOff();
  const params = { shared_memory_region: 'r', shared_memory_byte_size: 16 };
  const h = await post(s.httpPort, '/v2/models/echo/infer', { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 4], parameters: params }] });
  assert.equal(h.status, 404);
  assert.match(JSON.parse(h.text).error, /^Unable to find shared memory region: 'r'; client shared memory is disabled/);
  const g = await offCall('ModelInfer', {
    model_name: 'echo',
    inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 4], parameters: { shared_memory_region: { string_param: 'r' }, shared_memory_byte_size: { int64_param: 16 } } }],
  });
  assert.equal(g.error?.code, status.NOT_FOUND);
  assert.match(g.error!.details, /^Unable to find shared memory region: 'r'; client shared memory is disabled/);
});

test('serve without --allow-client-shm: the extension is not advertised over HTTP or gRPC', async () => {
  const s = await startOff();
  const v2 = await (await fetch(`http://127.0.0.1:${s.httpPort}/v2`)).json() as { extensions: string[] };
  assert.ok(!v2.extensions.includes('system_shared_memory'), v2.extensions.join(','));
  const meta = await offCall('ServerMetadata', {});
  assert.ok(!meta.res.extensions.includes('system_shared_memory'), meta.res.extensions.join(','));
});
