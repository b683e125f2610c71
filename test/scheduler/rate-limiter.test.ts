import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelConfig, ModelInstanceGroup } from '../../src/config/index.js';
import { Errors } from '../../src/errors.js';
import { ManualClock, RateLimiter, createScheduler, type RateLimitResource } from '../../src/scheduler/index.js';
import { TestInstance, TestItem, flush, modelConfig } from './helpers.js';

type Limits = NonNullable<ModelInstanceGroup['rate_limiter']>;
const limits = (resources: Record<string, number>, priority = 0, global = false): Limits => ({
  resources: Object.entries(resources).map(([name, count]) => ({ name, count, global })), priority,
});

/** A model on a shared limiter: one instance group of `count` instances, default scheduler unless `over` says. */
function model(limiter: RateLimiter, name: string, l: Limits | undefined, o: { count?: number; over?: Partial<ModelConfig> } = {}) {
  const clock = new ManualClock();
  const count = o.count ?? 1;
  const instances = Array.from({ length: count }, (_, i) => new TestInstance(i));
  const group: ModelInstanceGroup = { name: `${name}_0`, kind: 'KIND_CPU', count, ...(l ? { rate_limiter: l } : {}) };
  const config = modelConfig({ name, instance_group: [group], ...o.over });
  const s = createScheduler(config, instances, { model: name, clock, rateLimiter: limiter });
  const item = (label: string) => {
    const it = new TestItem(label, { now: clock.now() });
    s.enqueue(it);
    return it;
  };
  return { s, instances, inst: instances[0]!, item };
}

test('two models contending for one resource execute one at a time; the waiting one starts when the other ends', async () => {
  const limiter = new RateLimiter();
  const a = model(limiter, 'a', limits({ R: 1 }));
  const b = model(limiter, 'b', limits({ R: 1 }));
  a.item('a1');
  b.item('b1');
  await flush();
  assert.deepEqual([a.inst.labels, b.inst.labels], [[['a1']], []], 'b waits while a holds R');
  await a.inst.complete();
  assert.deepEqual(b.inst.labels, [['b1']]);
  assert.equal(a.inst.busy, false);
});

test('a model naming no resource, or another resource, is not held back', async () => {
  const limiter = new RateLimiter();
  const a = model(limiter, 'a', limits({ R: 1 }));
  const b = model(limiter, 'b', limits({ S: 1 }));
  const c = model(limiter, 'c', undefined);
  a.item('a1'); b.item('b1'); c.item('c1');
  await flush();
  assert.deepEqual([a.inst.labels, b.inst.labels, c.inst.labels], [[['a1']], [['b1']], [['c1']]]);
});

test('without --rate-limit-resource a resource has the most any instance asks; instances share it', async () => {
  const limiter = new RateLimiter();
  const big = model(limiter, 'big', limits({ R: 2 }));
  const small = model(limiter, 'small', limits({ R: 1 }), { count: 2 });
  assert.equal(limiter.available('R'), 2);
  small.item('s1'); small.item('s2');
  await flush();
  assert.deepEqual(small.instances.map((i) => i.labels.length), [1, 1], 'two small instances fit in R=2 together');
  big.item('g1');
  await flush();
  assert.equal(big.inst.batches.length, 0, 'big needs both copies');
  await small.instances[0]!.complete();
  assert.equal(big.inst.batches.length, 0, 'one copy is not enough');
  await small.instances[1]!.complete();
  assert.deepEqual(big.inst.labels, [['g1']]);
});

test('priorities: an instance with priority 2 gets half the turns of one with priority 1 when both wait', async () => {
  const limiter = new RateLimiter();
  const a = model(limiter, 'a', limits({ R: 1 }, 1));
  const b = model(limiter, 'b', limits({ R: 1 }, 2));
  for (let i = 0; i < 6; i++) {
    a.item(`a${i}`);
    b.item(`b${i}`);
  }
  await flush();
  const order: string[] = [];
  for (let n = 0; n < 9; n++) {
    const running = a.inst.busy ? a : b;
    assert.equal(a.inst.busy && b.inst.busy, false, 'never both at once');
    order.push(running === a ? 'a' : 'b');
    await running.inst.complete();
  }
  assert.equal(order.join(''), 'abaabaaba');
});

test('equal priorities take turns', async () => {
  const limiter = new RateLimiter();
  const a = model(limiter, 'a', limits({ R: 1 }));
  const b = model(limiter, 'b', limits({ R: 1 }));
  for (let i = 0; i < 3; i++) {
    a.item(`a${i}`);
    b.item(`b${i}`);
  }
  await flush();
  const order: string[] = [];
  for (let n = 0; n < 6; n++) {
    const running = a.inst.busy ? a : b;
    order.push(running === a ? 'a' : 'b');
    await running.inst.complete();
  }
  assert.equal(order.join(''), 'ababab');
});

test('the dynamic batcher batches what queued while it waited for resources', async () => {
  const limiter = new RateLimiter();
  const holder = model(limiter, 'holder', limits({ R: 1 }));
  const db = { preferred_batch_size: [], max_queue_delay_microseconds: 0, preserve_ordering: false, priority_levels: 0, default_priority_level: 0, priority_queue_policy: {} };
  const m = model(limiter, 'm', limits({ R: 1 }), { over: { dynamic_batching: db } });
  holder.item('h');
  await flush();
  m.item('x');
  await flush();
  m.item('y'); m.item('z');
  await flush();
  await holder.inst.complete();
  await m.inst.complete();
  assert.deepEqual(m.inst.labels, [['x'], ['y', 'z']]);
});

test('load-time checks: an explicit count below an instance\'s need, a resource not given, both scopes', () => {
  const explicit: RateLimitResource[] = [{ name: 'R', count: 1 }];
  assert.throws(() => model(new RateLimiter(explicit), 'a', limits({ R: 2 })), (e) => Errors.rateLimitResourceShort.is(e) && /limited to 1 .* minimum required count is 2/.test((e as Error).message));
  assert.throws(() => model(new RateLimiter(explicit), 'a', limits({ S: 1 })), (e) => Errors.rateLimitResourceShort.is(e) && /"S" is limited to 0/.test((e as Error).message));
  const limiter = new RateLimiter();
  model(limiter, 'a', limits({ R: 1 }, 0, true));
  assert.throws(() => model(limiter, 'b', limits({ R: 1 })), (e) => Errors.rateLimitResourceScope.is(e));
  assert.equal(limiter.available('R', true), 1, 'the refused model left nothing behind');
  assert.equal(limiter.available('R'), undefined);
});

test('an explicit count for device 0 or every device applies; a global resource takes the largest given', () => {
  const limiter = new RateLimiter([{ name: 'R', count: 3, device: 0 }, { name: 'G', count: 2, device: 0 }, { name: 'G', count: 5 }]);
  model(limiter, 'a', limits({ R: 1 }));
  model(limiter, 'b', limits({ G: 1 }, 0, true));
  assert.equal(limiter.available('R'), 3);
  assert.equal(limiter.available('G', true), 5);
});

test('stopping a model leaves the limiter: its resources no longer count', async () => {
  const limiter = new RateLimiter();
  const a = model(limiter, 'a', limits({ R: 3 }));
  const b = model(limiter, 'b', limits({ R: 1 }));
  assert.equal(limiter.available('R'), 3);
  a.item('a1');
  await flush();
  const stopped = a.s.stop();
  await a.inst.complete();
  await stopped;
  assert.equal(limiter.available('R'), 1);
  b.item('b1');
  await flush();
  assert.deepEqual(b.inst.labels, [['b1']]);
});

test('the sequence batcher waits for resources too', async () => {
  const limiter = new RateLimiter();
  const holder = model(limiter, 'holder', limits({ R: 1 }));
  const seq = model(limiter, 'seq', limits({ R: 1 }), { over: { max_batch_size: 2, sequence_batching: { max_sequence_idle_microseconds: 0, control_input: [], state: [] } } });
  holder.item('h');
  await flush();
  seq.s.enqueue(new TestItem('s1', { sequence: { id: 5n, start: true, end: true } }));
  await flush();
  assert.equal(seq.inst.batches.length, 0, 'the sequence request waits while holder holds R');
  await holder.inst.complete();
  assert.deepEqual(seq.inst.labels, [['s1']]);
});
