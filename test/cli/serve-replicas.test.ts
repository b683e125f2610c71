/**
 * `tributary serve --replicas 2` as users run it: one primary, two replica processes on one HTTP
 * and one gRPC port. Each HTTP request goes on a new connection (the replicas accept connections,
 * not requests, from the shared port, whichever is ready first), and the `tributary-replica`
 * header says which one answered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { LOOPBACK, runTributary, startServe, type Served } from '../helpers/tributary-process.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { createGrpcClient } from '../../src/client/index.js';

const echo = (name: string) => `name: "${name}"
backend: "identity"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ -1 ] } ]
`;

interface Answer { status: number; pid: number; body: string }

/** One request on its own connection. */
function call(port: number, method: string, path: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: data ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, pid: Number(res.headers['tributary-replica']), body: text }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

/**
 * At least `n` requests, one connection each, and more until both replicas have answered (the
 * kernel picks the replica for each connection: a short run may land on one); the answers by pid.
 */
async function spread(port: number, n: number, method: string, path: string, body?: unknown): Promise<Map<number, Answer[]>> {
  const byPid = new Map<number, Answer[]>();
  for (let i = 0; i < n || (byPid.size < 2 && i < MAX_SPREAD); i++) {
    const a = await call(port, method, path, body);
    byPid.set(a.pid, [...(byPid.get(a.pid) ?? []), a]);
  }
  return byPid;
}

function bannerPids(log: string): number[] {
  const line = /2 replicas sharing the HTTP and gRPC ports[^\n]*/.exec(log)?.[0] ?? '';
  return [...line.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));
}

async function waitForLog(s: Served, re: RegExp, ms = 90_000): Promise<void> {
  const until = Date.now() + ms;
  while (!re.test(s.log())) {
    if (Date.now() > until) throw new Error(`no ${re} in the log within ${ms} ms:\n${s.log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Connections that must reach both replicas: each lands on either, so 64 in a row on one is a fault. */
const MAX_SPREAD = 64;
const INFER = { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 2], data: [1, 2] }] };

test('serve --replicas 2: one port, summed metrics, control on every replica, replacement, drain', { timeout: 240_000 }, async (t) => {
  const repo = tempRepo({
    'echo/config.pbtxt': echo('echo'), 'echo/1/.keep': '', 'other/config.pbtxt': echo('other'), 'other/1/.keep': '',
    'broken/config.pbtxt': 'name: "broken"\nbackend: "no_such_backend"\n', 'broken/1/.keep': '',
  });
  const s = await startServe([...LOOPBACK, '--model-repository', repo.dir, '--replicas', '2', '--model-control-mode', 'explicit', '--load-model', 'echo'], 120_000);
  try {
    const pids = bannerPids(s.log());
    let inferred = 0;

    await t.test('the banner names two replicas, and both answer on the one HTTP port', async () => {
      assert.equal(pids.length, 2, s.log());
      const byPid = await spread(s.http, 8, 'POST', '/v2/models/echo/infer', INFER);
      assert.deepEqual([...byPid.keys()].sort(), [...pids].sort());
      for (const answers of byPid.values()) for (const a of answers) assert.equal(a.status, 200, a.body);
      inferred = [...byPid.values()].reduce((n, answers) => n + answers.length, 0);
    });

    await t.test('the metrics port sums the replicas\' counters and counts them', async () => {
      const text = await (await fetch(`http://127.0.0.1:${s.metrics}/metrics`)).text();
      assert.match(text, new RegExp(`^nv_inference_request_success\\{model="echo",version="1"\\} ${inferred}$`, 'm'));
      assert.match(text, new RegExp(`^nv_inference_count\\{model="echo",version="1"\\} ${inferred}$`, 'm'));
      assert.match(text, /^tributary_replicas\{state="configured"\} 2$/m);
      assert.match(text, /^tributary_replicas\{state="alive"\} 2$/m);
      // Machine-wide, sampled once by the primary rather than summed over replicas.
      assert.equal(text.match(/^nv_cpu_utilization /gm)?.length, 1);
    });

    await t.test('a load over HTTP and an unload over gRPC reach both replicas', async () => {
      const load = await call(s.http, 'POST', '/v2/repository/models/other/load', {});
      assert.equal(load.status, 200, load.body);
      const loaded = await spread(s.http, 6, 'GET', '/v2/models/other/ready');
      assert.equal(loaded.size, 2);
      for (const answers of loaded.values()) for (const a of answers) assert.equal(a.status, 200);

      const client = createGrpcClient({ address: `127.0.0.1:${s.grpc}` });
      try {
        await client.unloadModel('other');
      } finally {
        await client.close();
      }
      const unloaded = await spread(s.http, 6, 'GET', '/v2/models/other/ready');
      assert.equal(unloaded.size, 2);
      for (const answers of unloaded.values()) for (const a of answers) assert.notEqual(a.status, 200);
    });

    await t.test('a failed load answers with the first replica\'s error, naming it', async () => {
      const r = await call(s.http, 'POST', '/v2/repository/models/missing/load', {});
      // Triton's kind for a model no repository holds: INTERNAL (500), kept across the replicas.
      assert.equal(r.status, 500);
      assert.match(JSON.parse(r.body).error as string, new RegExp(`^replica 1 \\(pid ${pids[0]}\\): failed to load 'missing'`));
      // A model whose versions fail: INVALID_ARG (400). The replacement below replays this failure and must still serve.
      const broken = await call(s.http, 'POST', '/v2/repository/models/broken/load', {});
      assert.equal(broken.status, 400, broken.body);
      assert.match(JSON.parse(broken.body).error as string, new RegExp(`^replica 1 \\(pid ${pids[0]}\\): load failed for model 'broken'`));
    });

    await t.test('a killed replica is replaced, with the controls done so far, and serving goes on', async () => {
      const victim = pids[1]!;
      process.kill(victim, 'SIGKILL');
      await waitForLog(s, /replica 2 \(pid \d+\) is serving/);
      assert.match(s.log(), new RegExp(`replica 2 \\(pid ${victim}\\) exited unexpectedly with signal SIGKILL`));
      const byPid = await spread(s.http, 8, 'POST', '/v2/models/echo/infer', INFER);
      assert.equal(byPid.size, 2);
      assert.ok(!byPid.has(victim));
      for (const answers of byPid.values()) for (const a of answers) assert.equal(a.status, 200, a.body);
      // The replacement replayed load 'other', unload 'other', load 'missing', load 'broken': 'other' is not ready there either.
      const other = await spread(s.http, 6, 'GET', '/v2/models/other/ready');
      assert.equal(other.size, 2);
      for (const answers of other.values()) for (const a of answers) assert.notEqual(a.status, 200);
    });

    await t.test('SIGTERM drains both replicas and exits 0', async () => {
      assert.equal(await s.stop(), 0, s.log());
      const drained = [...s.log().matchAll(/ (\d+) serve\] drained: /g)].map((m) => m[1]);
      assert.equal(new Set(drained).size, 2, s.log());
      assert.match(s.log(), /stopped: every replica exited/);
    });
  } finally {
    await s.stop();
    repo.remove();
  }
});

test('serve --replicas 2 whose model fails to load exits 1, as a single server does', { timeout: 120_000 }, async () => {
  const repo = tempRepo({ 'broken/config.pbtxt': 'name: "broken"\nbackend: "no_such_backend"\n', 'broken/1/.keep': '' });
  try {
    const r = await runTributary(['serve', ...LOOPBACK, '--model-repository', repo.dir, '--replicas', '2'], 110_000);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /replica \d \(pid \d+\) exited with code 1 before every replica was serving; stopping the others/);
    assert.doesNotMatch(r.stderr, /started, server id/);
  } finally {
    repo.remove();
  }
});

test('--replicas takes a count from 1 to 64', async () => {
  const r = await runTributary(['serve', '--model-repository', '/nonexistent', '--replicas', '0']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--replicas expects an integer from 1 to 64, got '0'/);
});
