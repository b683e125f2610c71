/**
 * `tributary serve` as users start it (bin/tributary.js in a child process, loopback port 0):
 * --version, generated help, --id in both front ends' server metadata, the start banner,
 * --exit-on-error's default, --strict-readiness both ways, CPU metric families on and off, and a
 * refused GPU flag.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { serveHelp } from '../../src/cli/serve-help.js';
import { SERVER_VERSION } from '../../src/server/index.js';
import { createTestClient } from '../frontend/grpc/grpc-client.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { LOOPBACK, runTributary, startServe } from '../helpers/tributary-process.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const run = (args: readonly string[]) => runTributary(args);
/** Starts `serve` on loopback port 0 (no --metrics-address: as in tritonserver, metrics bind to --http-address). */
const start = (args: readonly string[]) => startServe([...LOOPBACK, ...args]);

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
