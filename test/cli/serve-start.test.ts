/**
 * `tributary serve` as users start it (bin/tributary.js in a child process, loopback port 0):
 * --version, generated help, --id in both front ends' server metadata, the start banner,
 * --exit-on-error's default, --strict-readiness both ways, CPU metric families on and off, and a
 * refused GPU flag.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { serveHelp } from '../../src/cli/serve-help.js';
import { SERVER_VERSION } from '../../src/server/index.js';
import { createTestClient } from '../frontend/grpc/grpc-client.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
// No --metrics-address: as in tritonserver, metrics bind to --http-address (the banner shows 127.0.0.1).
const LOOPBACK = ['--http-port', '0', '--grpc-port', '0', '--metrics-port', '0', '--http-address', '127.0.0.1', '--grpc-address', '127.0.0.1'];

interface Started { http: number; grpc: number; metrics: number; log(): string; stop(): Promise<number | null> }
interface Exited { code: number | null; stdout: string; stderr: string }

/** Runs the command to its end (for commands that exit on their own). */
function run(args: readonly string[]): Promise<Exited> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`tributary ${args.join(' ')}: no exit in 30 s\n${stderr}`)); }, 30_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

/** Starts `serve` and waits for its start banner; the ports are read from the banner. */
function start(args: readonly string[]): Promise<Started> {
  const child = spawn(process.execPath, [BIN, 'serve', ...LOOPBACK, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { void stop(); reject(new Error(`no start banner in 30 s:\n${out}`)); }, 30_000);
    const check = () => {
      if (!/\/v2\/health\/ready is/.test(out)) return;
      clearTimeout(timer);
      const port = (re: RegExp) => Number(re.exec(out)?.[1]);
      resolve({
        http: port(/HTTP \(KServe v2\) listening on 127\.0\.0\.1:(\d+)/),
        grpc: port(/gRPC \(inference\.GRPCInferenceService\) listening on 127\.0\.0\.1:(\d+)/),
        metrics: port(/metrics listening on 127\.0\.0\.1:(\d+)\/metrics/),
        log: () => out,
        stop,
      });
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exited.then((code) => { clearTimeout(timer); reject(new Error(`serve exited ${code}:\n${out}`)); });
  });
}

let repo: TempRepo;

before(() => {
  // 'good' auto-completes from its ONNX file; 'broken' declares a type the model does not have.
  repo = tempRepo({
    'broken/config.pbtxt': [
      'name: "broken"', 'platform: "onnxruntime_onnx"', 'max_batch_size: 8',
      'input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] } ]',
      'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]', '',
    ].join('\n'),
  });
  repo.onnx('good', 'identity_fp32.onnx');
  repo.onnx('broken', 'identity_fp32.onnx');
});

after(() => repo.remove());

test('--version prints package.json\'s version (the server metadata version too); help is the generated table', async () => {
  assert.equal(SERVER_VERSION, VERSION, 'the server metadata version is the package version');
  const [version, help, top] = await Promise.all([run(['--version']), run(['serve', '--help']), run(['--help'])]);
  assert.deepEqual([version.code, version.stdout, version.stderr], [0, `${VERSION}\n`, '']);
  assert.deepEqual([help.code, help.stdout, help.stderr], [0, serveHelp(), '']);
  assert.equal(top.code, 0);
  assert.match(top.stdout, /--version/);
});

test('a refused GPU flag: exit 2, one line naming the flag and why, before any model loads', async () => {
  const r = await run(['serve', '--model-repository', repo.dir, ...LOOPBACK, '--cuda-memory-pool-byte-size=0:67108864']);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, "error: --cuda-memory-pool-byte-size=0:67108864 is refused: tributary runs models on the CPU only (ONNX Runtime CPU provider, TypeScript sandboxes); there is no GPU to configure; remove it\n");
  assert.doesNotMatch(r.stderr, /Unknown option|loaded/);
});

test('--exit-on-error defaults to true (tritonserver\'s default): a model that fails at start exits 1', async () => {
  const r = await run(['serve', '--model-repository', repo.dir, ...LOOPBACK]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /model 'broken' version 1: UNAVAILABLE \(.*INPUT0/);
  assert.match(r.stderr, /model 'good' version 1: READY \(loaded in \d+ ms\)/);
  assert.match(r.stderr, /a model failed to load and --exit-on-error=true \(tritonserver's default\); --exit-on-error=false serves the models that loaded/);
  assert.doesNotMatch(r.stderr, /listening on/);
});

test('--disable-auto-complete-config requires a complete config (as --strict-model-config=true); --metrics-interval-ms must be > 0', async () => {
  const [strict, interval] = await Promise.all([
    run(['serve', '--model-repository', repo.dir, ...LOOPBACK, '--disable-auto-complete-config', '--strict-model-config=false']),
    run(['serve', '--model-repository', repo.dir, ...LOOPBACK, '--metrics-interval-ms=0']),
  ]);
  assert.equal(strict.code, 1, strict.stderr);
  assert.match(strict.stderr, /model 'good'.*: UNAVAILABLE/);
  assert.equal(interval.code, 2, interval.stderr);
  assert.equal(interval.stderr, "error: --metrics-interval-ms expects a number of milliseconds > 0, got '0'\n");
});

test('strict readiness (default): not ready while a model failed, logged once with the model; --id defaults to triton', async () => {
  const s = await start(['--model-repository', repo.dir, '--exit-on-error=false']);
  try {
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`http://127.0.0.1:${s.http}/v2/health/ready`)).status, 400);
    assert.equal((await fetch(`http://127.0.0.1:${s.http}/v2/health/live`)).status, 200);
    assert.equal(((await (await fetch(`http://127.0.0.1:${s.http}/v2`)).json()) as { name: string }).name, 'triton');
    const notReady = s.log().split('\n').filter((l) => /not ready: /.test(l));
    assert.equal(notReady.length, 1, `logged once per change, not per probe:\n${s.log()}`);
    assert.match(notReady[0]!, /^W.* not ready: 'broken' UNAVAILABLE \(.*INPUT0/);
    assert.match(s.log(), /\/v2\/health\/ready is false: true once every model the server loads is ready \(--strict-readiness=true\)/);
    const metrics = await (await fetch(`http://127.0.0.1:${s.metrics}/metrics`)).text();
    for (const family of ['nv_cpu_utilization', 'nv_cpu_memory_total_bytes', 'nv_cpu_memory_used_bytes']) {
      assert.match(metrics, new RegExp(`^${family} [0-9.e+-]+$`, 'm'), family);
    }
    const used = Number(/^nv_cpu_memory_used_bytes (\S+)$/m.exec(metrics)![1]);
    const total = Number(/^nv_cpu_memory_total_bytes (\S+)$/m.exec(metrics)![1]);
    assert.ok(used > 0 && used <= total, `${used} of ${total}`);
  } finally {
    assert.equal(await s.stop(), 0);
  }
});

test('--strict-readiness=false, --id, no CPU metrics: ready while a model failed, the id in HTTP and gRPC metadata, the banner', async () => {
  const s = await start(['--model-repository', repo.dir, '--exit-on-error=false', '--strict-readiness=false', '--id', 'edge-7',
    '--allow-cpu-metrics=false', '--metrics-interval-ms=500', '--http-thread-count=4']);
  const grpc = createTestClient(s.grpc);
  try {
    assert.equal((await fetch(`http://127.0.0.1:${s.http}/v2/health/ready`)).status, 200);
    assert.deepEqual(await grpc.call('ServerReady'), { ready: true });
    const http = await (await fetch(`http://127.0.0.1:${s.http}/v2`)).json() as { name: string; version: string };
    assert.deepEqual([http.name, http.version], ['edge-7', VERSION]);
    const meta = await grpc.call<{ name: string; version: string }>('ServerMetadata');
    assert.deepEqual([meta.name, meta.version], ['edge-7', VERSION]);
    const metrics = await (await fetch(`http://127.0.0.1:${s.metrics}/metrics`)).text();
    assert.doesNotMatch(metrics, /nv_cpu_/);
    assert.match(metrics, /tributary_process_cpu_seconds_total/);

    const log = s.log();
    assert.doesNotMatch(log, /not ready: /);
    assert.match(log, /W.* --http-thread-count has no effect: requests are served on Node's event loop/);
    const banner = log.slice(log.indexOf(`tributary ${VERSION} started`));
    assert.match(banner, new RegExp(`^tributary ${VERSION.replace(/\./g, '\\.')} started, server id 'edge-7'\n`));
    const lines = banner.split('\n').slice(1, 7);
    assert.deepEqual(lines.slice(0, 3), [
      `  HTTP (KServe v2) listening on 127.0.0.1:${s.http}`,
      `  gRPC (inference.GRPCInferenceService) listening on 127.0.0.1:${s.grpc}`,
      `  metrics listening on 127.0.0.1:${s.metrics}/metrics`,
    ]);
    assert.ok(s.http > 0 && s.grpc > 0 && s.metrics > 0, 'real ports, not the 0 asked for');
    assert.match(lines[3]!, /^ {2}model 'broken' version 1: UNAVAILABLE \(.*INPUT0.*\)$/);
    assert.match(lines[4]!, /^ {2}model 'good' version 1: READY \(loaded in \d+ ms\)$/);
    assert.equal(lines[5], '  /v2/health/ready is true: true while the server is live, whatever the models (--strict-readiness=false)');
  } finally {
    grpc.close();
    assert.equal(await s.stop(), 0);
  }
});
