/**
 * The Redis Streams sink on a real Redis (skipped, with the reason, where none can be had): records
 * XADDed to one stream with a length cap, read back by `inspect --redis` as from a directory, and a
 * Redis that is gone makes records drop, counted, while requests are answered.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { lastValueFrom } from 'rxjs';
import { Redis } from 'ioredis';
import { createCapture, parseCaptureConfig, readCaptureStream, tensorOfRecord } from '../../src/capture/index.js';
import { createDataPlane } from '../../src/dataplane/index.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { quietLog } from '../helpers/quiet-log.js';
import { OWN_REDIS_SKIP, REDIS_SKIP, startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { runTributary } from '../helpers/tributary-process.js';

quietLog([/capture: Redis/]);

let server: LocalServer;
let redis: TestRedis;
before(async () => {
  if (REDIS_SKIP) return;
  redis = await startTestRedis();
  server = await createServer({ modelRepository: new URL('../fixtures/bls/', import.meta.url).pathname, modelControlMode: 'explicit', loadModels: ['ident'] });
});
after(async () => {
  await server?.close();
  await redis?.stop();
});

const noHeaders = { get: () => undefined, entries: () => [] };

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(ok(), what);
}

test('records go to one capped stream, and inspect --redis reads them back', { skip: REDIS_SKIP }, async () => {
  const stream = `test:capture:${randomUUID()}`;
  const capture = await createCapture(parseCaptureConfig([`redis=${redis.host}:${redis.port}`, `redis-stream=${stream}`, 'redis-maxlen=1000'])!);
  const edge = createDataPlane(server, { capture }).edge();
  for (let i = 0; i < 5; i++) await lastValueFrom(edge.infer({ model: 'ident', id: `r${i}`, inputs: [createTensor('IN', 'FP32', [1, 1], [i])] }, noHeaders).responses);
  await until('five records written', () => capture.counts().written.redis === 5);
  await capture.close();
  const { records } = await readCaptureStream(redis.host, redis.port, stream);
  assert.deepEqual(records.map((r) => r.request_id), ['r0', 'r1', 'r2', 'r3', 'r4']);
  assert.deepEqual(Array.from(tensorOfRecord(records[3]!.inputs[0]!)!.data as Float32Array), [3]);
  const cli = await runTributary(['inspect', '--redis', `${redis.host}:${redis.port}`, '--stream', stream, '--id', 'r2', '--format', 'json']);
  assert.equal(cli.code, 0, cli.stderr);
  const [shown] = JSON.parse(cli.stdout) as { request_id: string; tree: { outputs: { data: number[] }[] }[] }[];
  assert.equal(shown!.request_id, 'r2');
  assert.deepEqual(shown!.tree[0]!.outputs[0]!.data, [2]);
  const client = new Redis({ host: redis.host, port: redis.port });
  try {
    // The cap: MAXLEN ~ trims whole radix-tree nodes, so a long run stays near it, never far past.
    const capped = await createCapture(parseCaptureConfig([`redis=${redis.host}:${redis.port}`, `redis-stream=${stream}:cap`, 'redis-maxlen=10'])!);
    const e2 = createDataPlane(server, { capture: capped }).edge();
    for (let i = 0; i < 300; i++) await lastValueFrom(e2.infer({ model: 'ident', inputs: [createTensor('IN', 'FP32', [1, 1], [i])] }, noHeaders).responses);
    await until('300 records written', () => capped.counts().written.redis === 300);
    await capped.close();
    assert.ok(await client.xlen(`${stream}:cap`) < 300);
    await client.del(stream, `${stream}:cap`);
  } finally {
    client.disconnect();
  }
});

test('with Redis gone, records are dropped and counted and requests are answered', { skip: OWN_REDIS_SKIP }, async () => {
  const own = await startTestRedis(true);
  const capture = await createCapture(parseCaptureConfig([`redis=${own.host}:${own.port}`, `redis-stream=gone:${randomUUID()}`])!);
  await own.stop();
  const edge = createDataPlane(server, { capture }).edge();
  for (let i = 0; i < 3; i++) {
    const r = await lastValueFrom(edge.infer({ model: 'ident', inputs: [createTensor('IN', 'FP32', [1, 1], [i])] }, noHeaders).responses);
    assert.deepEqual(Array.from(r.outputs[0]!.data as Float32Array), [i]);
  }
  await until('three records dropped', () => capture.counts().dropped.redis === 3);
  await capture.close();
});
