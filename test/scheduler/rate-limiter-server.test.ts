/** The rate limiter through a real server: models loaded from a repository contend for one resource. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, inferOnce } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo } from '../helpers/temp-repo.js';

quietLog([/Resource count for "R" is limited to 1/]);

/** An identity model whose executions each take `delayMs` on a timer and hold `resource`. */
const limited = (name: string, delayMs: number, resource: string, count = 1) => `
name: "${name}"
backend: "identity"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU rate_limiter { resources [ { name: "${resource}" count: ${count} } ] priority: 1 } } ]
parameters [ { key: "execute_delay_ms" value: { string_value: "${delayMs}" } } ]
`;

const request = (model: string) => ({ model, inputs: [createTensor('IN', 'INT32', [1], Int32Array.from([1]))] });

test('--rate-limit=execution_count: two models holding one resource never execute together; the wait is queue time', async () => {
  const repo = tempRepo({ 'a/config.pbtxt': limited('a', 60, 'R'), 'a/1/.keep': '', 'b/config.pbtxt': limited('b', 60, 'R'), 'b/1/.keep': '' });
  const server = await createServer({ modelRepository: repo.dir, rateLimit: 'execution_count' });
  try {
    const ended: Record<string, number> = {};
    await Promise.all(['a', 'b'].map(async (m) => {
      await inferOnce(server, request(m));
      ended[m] = performance.now();
    }));
    // The second execution cannot start before the first ends, and lasts 60 ms on its own timer.
    assert.ok(Math.abs(ended.a! - ended.b!) >= 55, `completions ${Math.abs(ended.a! - ended.b!).toFixed(1)} ms apart`);
    const stats = server.modelStatistics().model_stats;
    const queueMs = stats.map((s) => s.inference_stats.queue.ns / 1e6);
    assert.ok(Math.max(...queueMs) >= 55, `the waiting model counts its wait as queue time (${queueMs.map((q) => q.toFixed(1)).join(', ')} ms)`);
  } finally {
    await server.close();
    repo.remove();
  }
});

test('--rate-limit-resource below what an instance asks fails that model\'s load with Triton\'s message', async () => {
  const repo = tempRepo({ 'a/config.pbtxt': limited('a', 0, 'R', 2), 'a/1/.keep': '', 'b/config.pbtxt': limited('b', 0, 'S'), 'b/1/.keep': '' });
  const server = await createServer({ modelRepository: repo.dir, rateLimit: 'execution_count', rateLimitResources: [{ name: 'R', count: 1 }, { name: 'S', count: 1 }] });
  try {
    const index = await server.repositoryIndex();
    const a = index.find((m) => m.name === 'a');
    assert.equal(a?.state, 'UNAVAILABLE');
    assert.match(a!.reason, /Resource count for "R" is limited to 1 .* minimum required count is 2; give --rate-limit-resource=R:2/);
    assert.equal(index.find((m) => m.name === 'b')?.state, 'READY');
    assert.deepEqual([...(await inferOnce(server, request('b'))).outputs[0]!.data as Int32Array], [1]);
  } finally {
    await server.close();
    repo.remove();
  }
});
