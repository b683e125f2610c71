/**
 * Sequences behind a real load balancer: three `tributary serve` processes behind nginx rendered
 * from deploy/nginx/tributary.conf (a consistent hash on the `tributary-sequence-id` header, for
 * HTTP and for gRPC through grpc_pass), driven by the client SDK. Load spreads over the replicas
 * (their own statistics), every sequence's running sums come back whole and correct, each
 * sequence's requests all reached one replica (nginx's access log), and a replica killed
 * mid-load (SIGKILL, as a crash) loses only the sequences and requests it held while the rest
 * continue. Skipped, saying so, where nginx is not installed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createGrpcClient, createHttpClient, createTensor, type InferenceClient } from '../../src/client/index.js';
import { LOOPBACK, startServe, type Served } from '../helpers/tributary-process.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { ROOT } from './deploy-files.js';
import { findNginx, startNginx, type NginxProxy } from './nginx-proxy.js';

const nginx = findNginx();
const FIXTURE = join(ROOT, 'test/fixtures/sequence/accumulator_ts');
const REPLICAS = 3;

interface SequenceRun {
  key: string;
  done: number;
  steps: number;
  /** The first failure, and what the next step got (sent once more, as a client that carries on would). */
  error?: string;
  retry?: string;
  finishedAt?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One sequence of `steps` requests; every answer must be the running sum so far. Stops after the first error and one more step. */
async function runSequence(client: InferenceClient, id: number | string, steps: number, run: SequenceRun, pauseMs = 0): Promise<void> {
  let sum = 0;
  for (let i = 0; i < steps; i++) {
    const v = (i % 7) + 1;
    const step = () => client.infer('accumulator', [createTensor('INPUT', 'FP32', [1, 1], [v])], {
      sequence: { id, start: i === 0, end: i === steps - 1 },
    });
    try {
      const r = await step();
      sum += v;
      assert.equal(r.output('OUTPUT').data[0], sum, `sequence ${id}, step ${i}: the running sum`);
    } catch (e) {
      if (e instanceof assert.AssertionError) throw e;
      run.error = (e as Error).message;
      run.retry = await step().then(() => 'answered', (e2: Error) => e2.message);
      return;
    }
    run.done = i + 1;
    if (pauseMs) await sleep(pauseMs);
  }
  run.finishedAt = Date.now();
}

describe('sequences behind nginx', { skip: 'none' in nginx ? nginx.none : false }, () => {
  let repo: TempRepo;
  let replicas: Served[] = [];
  let proxy: NginxProxy;
  let http: InferenceClient;
  let grpc: InferenceClient;
  const direct: InferenceClient[] = [];

  before(async () => {
    repo = tempRepo({
      // The fixture's accumulator with 32 sequence slots (direct strategy: max_batch_size slots per
      // instance), so a replica that hashes more than its share of the concurrent sequences never
      // parks one in the backlog.
      'accumulator/config.pbtxt': readFileSync(join(FIXTURE, 'config.pbtxt'), 'utf8')
        .replace('name: "accumulator_ts"', 'name: "accumulator"').replace('max_batch_size: 8', 'max_batch_size: 32'),
      'accumulator/1/model.ts': readFileSync(join(FIXTURE, '1/model.ts'), 'utf8'),
      'identity/config.pbtxt': `name: "identity"
backend: "identity"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]
`,
      'identity/1/.keep': '',
    });
    replicas = await Promise.all(Array.from({ length: REPLICAS }, () => startServe([...LOOPBACK, '--model-repository', repo.dir], 90_000)));
    proxy = await startNginx((nginx as { bin: string }).bin, replicas);
    http = createHttpClient({ url: `http://127.0.0.1:${proxy.http}` });
    grpc = createGrpcClient({ address: `127.0.0.1:${proxy.grpc}` });
    for (const r of replicas) direct.push(createHttpClient({ url: `http://127.0.0.1:${r.http}` }));
  });
  after(async () => {
    await Promise.all([http?.close(), grpc?.close(), ...direct.map((c) => c.close())]);
    await proxy?.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    repo?.remove();
  });

  /** Per replica (by its HTTP and gRPC upstream addresses): the keys nginx sent there. */
  const replicaOf = (upstream: string) => replicas.findIndex((r) => upstream === `127.0.0.1:${r.http}` || upstream === `127.0.0.1:${r.grpc}`);
  const keysByReplica = (keys: ReadonlySet<string>) => {
    const where = new Map<string, Set<number>>();
    for (const line of proxy.routes()) {
      if (!keys.has(line.key)) continue;
      // With a refused connection nginx logs every replica tried; the last one answered.
      const last = line.upstream.split(', ').pop()!;
      where.set(line.key, (where.get(line.key) ?? new Set()).add(replicaOf(last)));
    }
    return where;
  };
  const inferCount = async (client: InferenceClient, model: string) =>
    Number((await client.modelStatistics(model)).model_stats[0]!.inference_count);

  test('load spreads over the replicas and every sequence stays whole on one of them', async (t) => {
    const runs: SequenceRun[] = [];
    const work: Promise<void>[] = [];
    for (let i = 0; i < 12; i++) {
      const h: SequenceRun = { key: String(1000 + i), done: 0, steps: 6 };
      const g: SequenceRun = { key: `grpc-seq-${i}`, done: 0, steps: 6 };
      runs.push(h, g);
      work.push(runSequence(http, 1000 + i, 6, h), runSequence(grpc, g.key, 6, g));
    }
    const identity = async (client: InferenceClient, n: number) => {
      for (let i = 0; i < n; i++) {
        const r = await client.infer('identity', [createTensor('IN', 'FP32', [2], [i, -i])]);
        assert.deepEqual([...(r.output('OUT').data as Float32Array)], [i, -i]);
      }
    };
    work.push(identity(http, 60), identity(grpc, 60));
    await Promise.all(work);
    for (const r of runs) assert.equal(r.error, undefined, `sequence ${r.key}: ${r.error}`);

    const where = keysByReplica(new Set(runs.map((r) => r.key)));
    for (const r of runs) assert.equal(where.get(r.key)?.size, 1, `sequence ${r.key} went to replicas ${[...(where.get(r.key) ?? [])]}`);
    const perReplica = await Promise.all(direct.map(async (c) => ({ acc: await inferCount(c, 'accumulator'), id: await inferCount(c, 'identity') })));
    t.diagnostic(`per replica (accumulator, identity) inferences: ${perReplica.map((p) => `${p.acc}/${p.id}`).join(', ')}`);
    assert.equal(perReplica.reduce((s, p) => s + p.acc, 0), 24 * 6);
    assert.equal(perReplica.reduce((s, p) => s + p.id, 0), 120);
    for (const [i, p] of perReplica.entries()) assert.ok(p.id > 0, `replica ${i} got none of the 120 requests without a routing key`);
    assert.ok(new Set([...where.values()].map((s) => [...s][0])).size >= 2, 'the 24 sequences hashed over at least two replicas');
  });

  test('a replica killed mid-load loses only the sequences and requests it held', async (t) => {
    const STEPS = 30;
    const runs: SequenceRun[] = [];
    const work: Promise<void>[] = [];
    for (let i = 0; i < 12; i++) {
      const h: SequenceRun = { key: String(2000 + i), done: 0, steps: STEPS };
      const g: SequenceRun = { key: `grpc-kill-${i}`, done: 0, steps: STEPS };
      runs.push(h, g);
      work.push(runSequence(http, 2000 + i, STEPS, h, 10), runSequence(grpc, g.key, STEPS, g, 10));
    }
    // Stateless requests all along, from one worker per transport.
    let stop = false;
    const stateless = { ok: 0, failed: 0, okAfterKill: 0 };
    let killedAt = Infinity;
    const statelessLoop = async (client: InferenceClient) => {
      while (!stop) {
        try {
          await client.infer('identity', [createTensor('IN', 'FP32', [1], [1])]);
          stateless.ok++;
          if (Date.now() > killedAt) stateless.okAfterKill++;
        } catch {
          stateless.failed++;
        }
      }
    };
    const loops = [statelessLoop(http), statelessLoop(grpc)];
    // How nginx reports a request its upstream died under: 502 over HTTP; over gRPC UNAVAILABLE, or a
    // reset of the HTTP/2 stream (code 2) when the replica died while answering.
    const PROXY_LOST = /502|Bad Gateway|UNAVAILABLE|Unavailable|Received RST_STREAM with code 2/i;

    // Kill, once every sequence is under way, the replica holding the most of them.
    while (runs.reduce((s, r) => s + r.done, 0) < runs.length * STEPS * 0.3) await sleep(20);
    const before = keysByReplica(new Set(runs.map((r) => r.key)));
    const counts = replicas.map((_, i) => [...before.values()].filter((s) => s.has(i)).length);
    const victim = counts.indexOf(Math.max(...counts));
    const finishedBefore = new Set(runs.filter((r) => r.finishedAt !== undefined).map((r) => r.key));
    killedAt = Date.now();
    process.kill(replicas[victim]!.pid, 'SIGKILL');

    await Promise.all(work);
    await sleep(500);
    stop = true;
    await Promise.all(loops);

    const held = new Set(runs.filter((r) => before.get(r.key)?.has(victim) && !finishedBefore.has(r.key)).map((r) => r.key));
    const lost = runs.filter((r) => r.error !== undefined);
    const gateway = lost.filter((r) => PROXY_LOST.test(r.error!));
    t.diagnostic(`replica ${victim} killed holding ${held.size} of ${runs.length} sequences (per replica: ${counts.join(', ')}); ` +
      `lost ${lost.length} sequences, ${gateway.length} of them on a request the proxy answered 502 / UNAVAILABLE; ` +
      `${runs.length - lost.length} completed whole; stateless requests: ${stateless.ok} ok ` +
      `(${stateless.okAfterKill} after the kill), ${stateless.failed} failed`);
    assert.ok(held.size > 0);
    assert.deepEqual(lost.map((r) => r.key).sort(), [...held].sort(), 'exactly the sequences the killed replica held are lost');
    for (const r of runs) if (!held.has(r.key)) assert.equal(r.done, STEPS, `sequence ${r.key} completed`);
    // The request that met the dead replica failed at the proxy; the next one went to the replica the key moved
    // to, which refused it for lack of the sequence's state (rather than answering a wrong sum).
    for (const r of lost) {
      assert.match(r.error!, new RegExp(`START flag|${PROXY_LOST.source}`, 'i'), r.error);
      assert.match(r.retry!, /must specify the START flag/, `sequence ${r.key}, the step after the failure`);
    }
    // At most the one request each stateless worker had in flight on the killed replica.
    assert.ok(stateless.failed <= loops.length, `${stateless.failed} stateless requests failed`);
    assert.ok(stateless.okAfterKill > 0, 'stateless requests went on after the kill');
    // The survivors serve on.
    const survivor = replicas.findIndex((_, i) => i !== victim);
    assert.ok(await direct[survivor]!.isServerReady());
  });
});
