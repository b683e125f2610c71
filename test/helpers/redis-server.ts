/**
 * A Redis for tests, decided as test/cache/redis-cache.test.ts decides: Debian's redis-server on
 * the PATH is started on a free loopback port for the test (and stopped after); without it the
 * test skips, saying so. TRIBUTARY_REDIS_URL (redis://host:port, as .ci/redis prints) names a
 * running one to use instead.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect, createServer as createNetServer } from 'node:net';

const URL_ENV = process.env.TRIBUTARY_REDIS_URL;
const HAS_BINARY = spawnSync('redis-server', ['--version']).status === 0;

/** false when a Redis can be had; else the reason the test is skipped. */
export const REDIS_SKIP: false | string = URL_ENV || HAS_BINARY
  ? false
  : 'no Redis: redis-server is not installed (Debian: apt-get install -y redis-server, or run .ci/redis) and TRIBUTARY_REDIS_URL is not set';

/** For a test that stops its Redis (an outage): it needs redis-server itself. */
export const OWN_REDIS_SKIP: false | string = HAS_BINARY ? false : 'redis-server is not installed (Debian: apt-get install -y redis-server, or run .ci/redis); this test stops a Redis of its own';

export interface TestRedis { host: string; port: number; stop(): Promise<void> }

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const answers = (host: string, port: number) => new Promise<boolean>((resolve) => {
  const c = connect(port, host, () => { c.end(); resolve(true); });
  c.on('error', () => resolve(false));
});

/** The Redis to use; `own`: always a redis-server of the test's own (one it may stop). */
export async function startTestRedis(own = false): Promise<TestRedis> {
  if (URL_ENV && !own) {
    const u = new URL(URL_ENV);
    return { host: u.hostname, port: Number(u.port || 6379), stop: async () => undefined };
  }
  const port = await freePort();
  const p: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const stop = () => new Promise<void>((r) => {
    if (p.exitCode !== null) return r();
    p.once('exit', () => r());
    p.kill();
  });
  for (let i = 0; i < 200; i++) {
    if (await answers('127.0.0.1', port)) return { host: '127.0.0.1', port, stop };
    await new Promise((r) => setTimeout(r, 25));
  }
  await stop();
  throw new Error(`redis-server did not listen on port ${port}`);
}
