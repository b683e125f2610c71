import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelDynamicBatching, ModelQueuePolicy } from '../../src/config/index.js';
import { ManualClock, createScheduler, type SchedulerHooks } from '../../src/scheduler/index.js';
import { TestInstance, TestItem, flush, modelConfig } from './helpers.js';

function db(over: Partial<ModelDynamicBatching> = {}): ModelDynamicBatching {
  return { preferred_batch_size: [], max_queue_delay_microseconds: 0, preserve_ordering: false, priority_levels: 0, default_priority_level: 0, priority_queue_policy: {}, ...over };
}

function setup(o: { batching?: Partial<ModelDynamicBatching> | false; maxBatch?: number; instances?: number; hooks?: SchedulerHooks } = {}) {
  const clock = new ManualClock();
  const instances = Array.from({ length: o.instances ?? 1 }, (_, i) => new TestInstance(i));
  const config = modelConfig({ max_batch_size: o.maxBatch ?? 8, ...(o.batching === false ? {} : { dynamic_batching: db(o.batching ?? {}) }) });
  const s = createScheduler(config, instances, { model: 'm', clock, ...(o.hooks ? { hooks: o.hooks } : {}) });
  const item = (label: string, extra: ConstructorParameters<typeof TestItem>[1] = {}) => {
    const it = new TestItem(label, { now: clock.now(), ...extra });
    s.enqueue(it);
    return it;
  };
  return { clock, instances, inst: instances[0]!, s, item };
}

const policy = (p: Partial<ModelQueuePolicy>): ModelQueuePolicy => ({ timeout_action: 'REJECT', default_timeout_microseconds: 0, allow_timeout_override: false, max_queue_size: 0, ...p });

test('default scheduler: each request runs alone, in arrival order, as soon as an instance is free', async () => {
  const { inst, item } = setup({ batching: false });
  const a = item('a'); item('b'); item('c');
  await flush();
  assert.deepEqual(inst.labels, [['a']]);
  await inst.complete();
  assert.ok(a.responded, "a answered");
  await inst.complete();
  assert.deepEqual(inst.labels, [['a'], ['b'], ['c']]);
});

test('default scheduler: N instances execute concurrently', async () => {
  const { instances, item } = setup({ batching: false, instances: 2 });
  item('a'); item('b'); item('c');
  await flush();
  assert.deepEqual(instances.map((i) => i.labels), [[['a']], [['b']]]);
  await instances[1]!.complete();
  assert.deepEqual(instances[1]!.labels, [['b'], ['c']]);
});

test('delay 0: a lone request dispatches on a microtask, with no timer', async () => {
  const { inst, item, clock } = setup();
  item('a');
  assert.equal(inst.batches.length, 0, 'not synchronously inside enqueue');
  await Promise.resolve();
  assert.deepEqual(inst.labels, [['a']]);
  assert.equal(clock.pendingTimers(), 0);
});

test('requests enqueued in one tick batch together; requests arriving while busy form the next batch', async () => {
  const { inst, item } = setup();
  item('a'); item('b');
  await flush();
  item('c'); item('d'); item('e');
  await flush();
  assert.deepEqual(inst.labels, [['a', 'b']]);
  await inst.complete();
  assert.deepEqual(inst.labels, [['a', 'b'], ['c', 'd', 'e']]);
});

test('batches never exceed max_batch_size counting each request\'s rows', async () => {
  const { inst, item } = setup({ maxBatch: 4 });
  item('a', { rows: 3 }); item('b', { rows: 2 }); item('c', { rows: 1 }); item('d', { rows: 1 }); item('e', { rows: 4 });
  await flush();
  await inst.complete(); await inst.complete(); await inst.complete();
  assert.deepEqual(inst.labels, [['a'], ['b', 'c', 'd'], ['e']]);
  for (const b of inst.batches) assert.ok(b.reduce((n, r) => n + r.batchSize, 0) <= 4, "rows <= max_batch_size");
});

test('preferred_batch_size: the largest reachable preferred size runs at once, the rest waits out the delay', async () => {
  const { inst, item, clock } = setup({ batching: { preferred_batch_size: [2, 4], max_queue_delay_microseconds: 1000 } });
  item('a'); item('b'); item('c');
  await flush();
  assert.deepEqual(inst.labels, [['a', 'b']], 'preferred size 2 without waiting');
  await inst.complete();
  assert.equal(inst.batches.length, 1, 'c alone is not preferred: waits');
  clock.advance(0.999);
  await flush();
  assert.equal(inst.batches.length, 1);
  clock.advance(0.001);
  await flush();
  assert.deepEqual(inst.labels, [['a', 'b'], ['c']]);
});

test('preferred_batch_size caps batches at the largest preferred size', async () => {
  const { inst, item } = setup({ maxBatch: 16, batching: { preferred_batch_size: [2, 4] } });
  for (const l of 'abcdefg') item(l);
  await flush();
  await inst.complete(); await inst.complete();
  assert.deepEqual(inst.labels.map((b) => b.length), [4, 2, 1]);
});

test('max_queue_delay: waits for more requests up to the delay from the oldest, or until the batch is full', async () => {
  const { inst, item, clock } = setup({ maxBatch: 3, batching: { max_queue_delay_microseconds: 500 } });
  item('a');
  await flush();
  assert.equal(inst.batches.length, 0);
  clock.advance(0.3);
  item('b');
  await flush();
  assert.equal(inst.batches.length, 0);
  clock.advance(0.2);
  await flush();
  assert.deepEqual(inst.labels, [['a', 'b']]);
  await inst.complete();
  item('c'); item('d'); item('e');
  await flush();
  assert.deepEqual(inst.labels[1], ['c', 'd', 'e'], 'full batch runs before the delay');
});

test('preserve_ordering: responses leave in dispatch order across 2 instances', async () => {
  for (const preserve of [true, false]) {
    const log: string[] = [];
    const { instances, item } = setup({ instances: 2, maxBatch: 1, batching: { preserve_ordering: preserve } });
    item('a', { log }); item('b', { log }); item('c', { log });
    await flush();
    assert.deepEqual(instances.map((i) => i.labels), [[['a']], [['b']]]);
    await instances[1]!.complete();
    assert.deepEqual(log, preserve ? [] : ['b:final'], 'b held back while a runs');
    await instances[1]!.complete();
    await instances[0]!.complete();
    assert.deepEqual(log, preserve ? ['a:final', 'b:final', 'c:final'] : ['b:final', 'c:final', 'a:final']);
  }
});

test('priority levels: lower number first; default_priority_level for requests without one', async () => {
  const { inst, item } = setup({ maxBatch: 1, batching: { priority_levels: 3, default_priority_level: 2 } });
  item('run');
  await flush();
  item('low', { priority: 3 }); item('dflt'); item('high', { priority: 1 }); item('bogus', { priority: 9 });
  await flush();
  for (let i = 0; i < 4; i++) await inst.complete();
  assert.deepEqual(inst.labels.flat(), ['run', 'high', 'dflt', 'bogus', 'low']);
});

test('REJECT policy: a queued request times out at once, while a batch is still running (#7512)', async () => {
  const { inst, item, clock, s } = setup({ maxBatch: 1, batching: { default_queue_policy: policy({ default_timeout_microseconds: 1000 }) } });
  item('run');
  await flush();
  clock.advance(0.5);
  const q = item('q');
  clock.advance(0.999);
  assert.equal(q.errorCode, undefined);
  clock.advance(0.001);
  assert.equal(q.errorCode, 'TRB_TIMEOUT');
  assert.equal(q.events[0]!.kind === 'error' && q.events[0]!.error.kind, 'UNAVAILABLE');
  assert.match(q.events[0]!.kind === 'error' ? q.events[0]!.error.message : '', /^Request timeout expired$/, "Triton's words");
  assert.ok(inst.busy, 'the running batch has not finished');
  assert.equal(s.inflightCount(), 1);
  await inst.complete();
  assert.equal(inst.batches.length, 1, 'the timed-out request never executes');
});

test('DELAY policy: a timed-out request moves behind the others of its level instead of failing', async () => {
  const { inst, item, clock } = setup({ maxBatch: 1, batching: { default_queue_policy: policy({ timeout_action: 'DELAY', default_timeout_microseconds: 1000 }) } });
  item('run');
  await flush();
  const x = item('x');
  clock.advance(2);
  item('y'); item('z');
  await flush();
  for (let i = 0; i < 4; i++) await inst.complete();
  assert.deepEqual(inst.labels.flat(), ['run', 'y', 'z', 'x']);
  assert.ok(x.responded, "x answered");
});

test('allow_timeout_override: the request timeout replaces the default only when allowed', async () => {
  for (const allow of [true, false]) {
    const { item, clock } = setup({ maxBatch: 1, batching: { default_queue_policy: policy({ default_timeout_microseconds: 10_000, allow_timeout_override: allow }) } });
    item('run');
    await flush();
    const q = item('q', { timeoutUs: 500 });
    clock.advance(0.5);
    assert.equal(q.errorCode, allow ? 'TRB_TIMEOUT' : undefined);
    clock.advance(9.5);
    assert.equal(q.errorCode, 'TRB_TIMEOUT');
  }
});

test('priority_queue_policy applies per level; max_queue_size rejects with queueFull (UNAVAILABLE)', async () => {
  const { item, inst } = setup({
    maxBatch: 1,
    batching: { priority_levels: 2, default_priority_level: 2, priority_queue_policy: { '1': policy({ max_queue_size: 1 }) }, default_queue_policy: policy({ max_queue_size: 2 }) },
  });
  item('run');
  await flush();
  const h1 = item('h1', { priority: 1 });
  const h2 = item('h2', { priority: 1 });
  const l1 = item('l1'); const l2 = item('l2'); const l3 = item('l3');
  assert.equal(h1.errorCode, undefined);
  assert.equal(h2.errorCode, 'TRB_QUEUE_FULL');
  assert.equal(h2.events[0]!.kind === 'error' && h2.events[0]!.error.kind, 'UNAVAILABLE');
  assert.deepEqual([l1.errorCode, l2.errorCode, l3.errorCode], [undefined, undefined, 'TRB_QUEUE_FULL']);
  await inst.complete();
  item('h3', { priority: 1 });
  assert.equal(inst.labels.length, 2);
});

test('a request deadline fails it from the queue at once', async () => {
  const { item, clock } = setup({ maxBatch: 1 });
  item('run');
  await flush();
  const q = item('q', { deadline: 3 });
  clock.advance(3);
  assert.equal(q.errorCode, 'TRB_TIMEOUT');
  const late = item('late', { deadline: 1 });
  assert.equal(late.errorCode, 'TRB_TIMEOUT', 'already past its deadline when enqueued');
});

test('cancellation: a queued item leaves at once (CANCELLED); a running one sees its signal aborted', async () => {
  const { inst, item, s } = setup({ maxBatch: 1 });
  const run = item('run');
  await flush();
  const q = item('q'); item('r');
  q.abort.abort();
  assert.equal(q.errorCode, 'TRB_CANCELLED');
  assert.equal(s.inflightCount(), 2);
  run.abort.abort();
  assert.equal(inst.batches[0]![0]!.signal.aborted, true, 'the backend sees the abort');
  assert.equal(run.errorCode, undefined, 'the scheduler leaves a running item to its backend');
  await inst.complete();
  assert.deepEqual(inst.labels, [['run'], ['r']]);
});

test('ragged shapes: only equal batch keys batch together; the others wait for a later batch', async () => {
  const { inst, item } = setup();
  item('a', { key: '[3]' }); item('b', { key: '[3]' }); item('c', { key: '[5]' }); item('d', { key: '[3]' });
  await flush();
  await inst.complete(); await inst.complete();
  assert.deepEqual(inst.labels, [['a', 'b'], ['c'], ['d']]);
});

test('stop(): queued items fail UNAVAILABLE; resolves only after running batches end; later enqueues fail', async () => {
  const { inst, item, s } = setup({ maxBatch: 1 });
  const run = item('run');
  await flush();
  const q = item('q');
  let stopped = false;
  const p = s.stop().then(() => { stopped = true; });
  assert.equal(q.errorCode, 'TRB_MODEL_UNLOADING');
  await flush();
  assert.equal(stopped, false);
  await inst.complete();
  await p;
  assert.ok(run.responded, "run answered");
  assert.equal(item('after').errorCode, 'TRB_MODEL_UNLOADING');
});

test('hooks report batch start/end with the instance, and queue depth', async () => {
  const seen: string[] = [];
  const { instances, item } = setup({
    instances: 2, maxBatch: 2,
    hooks: {
      onBatchStart: (items, i) => seen.push(`start ${i} ${items.length}`),
      onBatchEnd: (items, t, i) => seen.push(`end ${i} ${items.length} ${t?.computeInferNs ?? '-'}`),
      onQueueDepth: (d) => seen.push(`depth ${d}`),
    },
  });
  item('a'); item('b'); item('c');
  await flush();
  await instances[1]!.complete({ computeInputNs: 1, computeInferNs: 7, computeOutputNs: 1 });
  assert.deepEqual(seen, ['depth 1', 'depth 2', 'depth 3', 'depth 1', 'start 0 2', 'depth 0', 'start 1 1', 'end 1 1 7']);
});

test('a rejected execute fails every unanswered request; a non-decoupled batch left unanswered fails too', async () => {
  const { inst, item } = setup({ maxBatch: 4 });
  const a = item('a'); const b = item('b');
  await flush();
  inst.batches[0]![0]!.send({ outputs: [] }, true);
  await inst.rejectBatch(new Error('boom'));
  assert.ok(a.responded, "a answered");
  assert.equal(b.errorCode, 'TRB_BACKEND_FAILED');
  const c = item('c');
  await flush();
  inst.pending.shift()!.resolve();
  await flush();
  assert.equal(c.errorCode, 'TRB_BACKEND_FAILED');
});

test('inflightCount counts queued and executing requests', async () => {
  const { inst, item, s } = setup({ maxBatch: 1 });
  item('a'); item('b');
  assert.equal(s.inflightCount(), 2);
  await flush();
  await inst.complete();
  assert.equal(s.inflightCount(), 1);
  await inst.complete();
  assert.equal(s.inflightCount(), 0);
});
