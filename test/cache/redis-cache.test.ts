/**
 * Triton's `redis` cache: two servers share one real redis-server (Debian's redis-server package;
 * the test skips, saying so, when it is not installed). A response one server computed is a hit on
 * the other; with Redis gone both keep answering, uncached.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, rm, appendFile } from 'node:fs/promises';
import { createServer as createNetServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseCacheConfig } from '../../src/cache/index.js';
import { setLogSink } from '../../src/logger.js';
import { createServer, inferOnce, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';

const HAS_REDIS = spawnSync('redis-server', ['--version']).status === 0;
const SKIP = HAS_REDIS ? false : 'redis-server is not installed (Debian: apt-get install -y redis-server); the Redis cache is not tested';

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function startRedis(port: number): Promise<ChildProcess> {
  const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1', () => { c.end(); resolve(true); });
      c.on('error', () => resolve(false));
    });
    if (ok) return p;
    await new Promise((r) => setTimeout(r, 25));
  }
  p.kill();
  throw new Error(`redis-server did not listen on port ${port}`);
}

const stat = (s: LocalServer, m: string) => {
  const st = s.modelStatistics(m).model_stats[0]!.inference_stats;
  return { hit: st.cache_hit.count, miss: st.cache_miss.count };
};

test('two servers share responses through one Redis, and serve uncached while it is down', { skip: SKIP }, async () => {
  const logs: string[] = [];
  setLogSink((l) => logs.push(l));
  const dir = await mkdtemp(join(tmpdir(), 'trb-redis-'));
  await cp(new URL('../fixtures/bls/ident', import.meta.url), join(dir, 'ident'), { recursive: true });
  await appendFile(join(dir, 'ident', 'config.pbtxt'), '\nresponse_cache { enable: true }\n');
  const port = await freePort();
  const redis = await startRedis(port);
  const settings = parseCacheConfig(['redis,host=127.0.0.1', `redis,port=${port}`, 'redis,socket_timeout=1000']);
  const a = await createServer({ modelRepository: dir, responseCache: settings! });
  const b = await createServer({ modelRepository: dir, responseCache: settings! });
  try {
    const req = (v: number) => ({ model: 'ident', inputs: [createTensor('IN', 'FP32', [1, 3], [v, v + 1, v + 2])] });
    const first = await inferOnce(a, req(1));
    // The insert is on its way when the response leaves; give it Redis's round trip.
    let fromB = await inferOnce(b, req(1));
    for (let i = 0; i < 100 && stat(b, 'ident').hit === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      fromB = await inferOnce(b, req(1));
    }
    assert.equal(stat(b, 'ident').hit, 1, 'server b answered from what server a stored');
    assert.deepEqual([...fromB.outputs[0]!.data], [...first.outputs[0]!.data]);
    assert.deepEqual(fromB.outputs[0]!.shape, [1, 3]);
    assert.equal(stat(a, 'ident').miss, 1);

    redis.kill();
    await new Promise((r) => redis.once('exit', r));
    const down = await inferOnce(a, req(5));
    assert.deepEqual([...down.outputs[0]!.data], [5, 6, 7], 'without Redis the model still answers');
    await inferOnce(a, req(5));
    assert.equal(stat(a, 'ident').hit, 0);
    const outage = logs.filter((l) => l.includes('Redis is unreachable'));
    assert.ok(outage.length >= 1 && outage.length <= 2, `one line per server per outage:\n${logs.join('\n')}`);
  } finally {
    await a.close();
    await b.close();
    redis.kill();
    await rm(dir, { recursive: true, force: true });
  }
});
