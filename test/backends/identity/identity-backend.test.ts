import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createIdentityBackend } from '../../../backends/identity/index.js';
import { Errors } from '../../../src/errors.js';
import { createTensor } from '../../../src/tensor/index.js';
import { errorOf, io, loadContext, loadInstance, modelConfig, outputsOf, params, testRequest } from '../onnxruntime/harness.js';

const identity = createIdentityBackend();
const cfg = (delayMs?: number) => modelConfig({
  name: 'id', backend: 'identity', max_batch_size: 8,
  input: [io('INPUT0', 'TYPE_FP32', [-1]), io('INPUT1', 'TYPE_STRING', [-1])],
  output: [io('OUTPUT0', 'TYPE_FP32', [-1]), io('OUTPUT1', 'TYPE_STRING', [-1])],
  parameters: delayMs === undefined ? {} : params({ execute_delay_ms: delayMs }),
});

test('output i is input i renamed, with the same data (no copy)', async () => {
  const { instance, close } = await loadInstance(identity, cfg(), '/unused/1/model.identity');
  const a = createTensor('INPUT0', 'FP32', [1, 3], [1, 2, 3]);
  const b = createTensor('INPUT1', 'BYTES', [1, 2], ['x', 'yz']);
  const r = testRequest('id', [b, a]);
  await instance.execute([r.req]);
  const out = await outputsOf(r);
  assert.equal(out.OUTPUT0!.data, a.data);
  assert.equal(out.OUTPUT1!.data, b.data);
  assert.deepEqual(out.OUTPUT0!.shape, [1, 3]);
  await close();
});

test('mismatched input/output counts or types fail the load', async () => {
  await assert.rejects(identity.load(modelConfig({ name: 'bad', input: [io('A', 'TYPE_FP32', [1])], output: [] }), loadContext('/x/1/m')),
    (e: Error) => Errors.modelLoadFailed.is(e) && /1 input\(s\) and 0 output\(s\)/.test(e.message));
  await assert.rejects(identity.load(modelConfig({ name: 'bad', input: [io('A', 'TYPE_FP32', [1])], output: [io('B', 'TYPE_INT32', [1])] }), loadContext('/x/1/m')),
    /identity input 'A' is TYPE_FP32 but its paired output 'B' is TYPE_INT32/);
});

test('execute_delay_ms delays on a timer: concurrent executions overlap instead of adding up', async () => {
  const { instance, close } = await loadInstance(identity, cfg(60), '/unused/1/model.identity');
  const t0 = performance.now();
  const reqs = [0, 1, 2].map((k) => testRequest('id', [createTensor('INPUT0', 'FP32', [1, 1], [k]), createTensor('INPUT1', 'BYTES', [1, 1], ['s'])]));
  // A 10 ms timer fires before the 60 ms delays end only if the delay leaves the loop free (a
  // busy-wait would resolve the executions first); timers fire in order of expiry even when the
  // process was not scheduled for a while, so this holds on a loaded machine.
  let fired = false;
  setTimeout(() => { fired = true; }, 10);
  await Promise.all(reqs.map((r) => instance.execute([r.req])));
  const ms = performance.now() - t0;
  assert.ok(ms >= 55, `finished after ${ms} ms, before the delay`);
  assert.ok(ms < 170, `3 parallel 60 ms delays took ${ms} ms (one after the other: 180)`);
  assert.ok(fired, 'the event loop ran a timer during the delay: the delay must not busy-wait');
  for (const [k, r] of reqs.entries()) assert.equal(((await outputsOf(r)).OUTPUT0!.data as Float32Array)[0], k);
  await close();
});

test('a request cancelled during the delay fails at once with cancelled', async () => {
  const { instance, close } = await loadInstance(identity, cfg(10_000), '/unused/1/model.identity');
  const ac = new AbortController();
  const r = testRequest('id', [createTensor('INPUT0', 'FP32', [1, 1], [1]), createTensor('INPUT1', 'BYTES', [1, 1], ['s'])], { signal: ac.signal });
  const t0 = performance.now();
  const done = instance.execute([r.req]);
  setTimeout(() => ac.abort(), 20);
  const e = await errorOf(r);
  await done;
  assert.ok(Errors.cancelled.is(e), String(e));
  assert.ok(performance.now() - t0 < 1000);
  await close();
});
