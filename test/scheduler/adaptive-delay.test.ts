import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelDynamicBatching } from '../../src/config/index.js';
import { Errors } from '../../src/errors.js';
import { ADAPTIVE_DELAY_PARAMETER, AdaptiveDelay, ManualClock, createScheduler } from '../../src/scheduler/index.js';
import { TestInstance, TestItem, flush, modelConfig } from './helpers.js';

/** Executions that cost 1 ms + 0.1 ms per row, as a compute-bound model would. */
function measured(d: AdaptiveDelay): void {
  for (const rows of [1, 2, 4, 8, 16, 1, 4, 16]) d.onExecuted(rows, 1 + 0.1 * rows);
}

function arrivals(d: AdaptiveDelay, perMs: number, ms: number): number {
  let t = 0;
  for (; t < ms; t += 1 / perMs) d.onArrival(t, 1);
  return t;
}

test('the execution line is fitted from measured batches', () => {
  const d = new AdaptiveDelay({ targetMs: 10, maxDelayMs: 10, capRows: 32, instances: 1 });
  measured(d);
  const { alpha, beta } = d.execLine();
  assert.ok(Math.abs(alpha - 1) < 1e-9 && Math.abs(beta - 0.1) < 1e-9, `alpha ${alpha} beta ${beta}`);
});

test('low load: no delay (batching would only add latency)', () => {
  const d = new AdaptiveDelay({ targetMs: 10, maxDelayMs: 10, capRows: 32, instances: 1 });
  measured(d);
  const now = arrivals(d, 0.05, 2000); // 50 requests/s against 1.1 ms executions
  assert.equal(d.delayMs(now), 0);
});

test('rising load: a delay grows with the arrival rate, just enough to keep utilization down', () => {
  const d = new AdaptiveDelay({ targetMs: 10, maxDelayMs: 10, capRows: 32, instances: 1 });
  measured(d);
  const medium = d.delayMs(arrivals(d, 1, 2000));
  const d2 = new AdaptiveDelay({ targetMs: 10, maxDelayMs: 10, capRows: 32, instances: 1 });
  measured(d2);
  const high = d2.delayMs(arrivals(d2, 4, 2000));
  assert.ok(medium > 0, `medium load delays (${medium} ms)`);
  assert.ok(high > medium, `higher load delays longer (${high} > ${medium})`);
  // The batch the delay gathers keeps utilization λ·e(b)/b at or under 0.8.
  const b = 1 + 4 * high;
  assert.ok((4 * (1 + 0.1 * b)) / b <= 0.81);
});

test('the latency budget and max_queue_delay bound the delay', () => {
  const tight = new AdaptiveDelay({ targetMs: 3, maxDelayMs: 10, capRows: 32, instances: 1 });
  measured(tight);
  const t = tight.delayMs(arrivals(tight, 4, 2000));
  assert.ok(t <= 3 - 2 * 1.1, `d + 2·e(1) within the 3 ms target (${t})`);
  const capped = new AdaptiveDelay({ targetMs: 10, maxDelayMs: 0.2, capRows: 32, instances: 1 });
  measured(capped);
  assert.equal(capped.delayMs(arrivals(capped, 4, 2000)), 0.2);
});

test('the rate decays when arrivals stop, and the delay returns to 0', () => {
  const d = new AdaptiveDelay({ targetMs: 10, maxDelayMs: 10, capRows: 32, instances: 1 });
  measured(d);
  const now = arrivals(d, 4, 2000);
  assert.ok(d.delayMs(now) > 0);
  assert.equal(d.delayMs(now + 3000), 0);
});

const db = (over: Partial<ModelDynamicBatching> = {}): ModelDynamicBatching => ({
  preferred_batch_size: [], max_queue_delay_microseconds: 5000, preserve_ordering: false, priority_levels: 0, default_priority_level: 0, priority_queue_policy: {}, ...over,
});

test('in the dynamic batcher: a lone request at low load runs at once; under load a free instance waits to batch', async () => {
  const clock = new ManualClock();
  const inst = new TestInstance();
  const config = modelConfig({ max_batch_size: 32, dynamic_batching: db(), parameters: { [ADAPTIVE_DELAY_PARAMETER]: { string_value: '10000' } } });
  const s = createScheduler(config, [inst], { model: 'm', clock });
  const send = (label: string) => s.enqueue(new TestItem(label, { now: clock.now() }));
  // Each execution costs 1 ms + 0.1 ms per row of clock time.
  const run = async () => {
    clock.advance(1 + 0.1 * inst.batches.at(-1)!.length);
    await inst.complete();
  };
  // Low load: one request every 20 ms.
  for (let i = 0; i < 5; i++) {
    send(`low${i}`);
    await flush();
    assert.equal(inst.batches.length, i + 1, `low${i} ran without waiting`);
    await run();
    clock.advance(18);
  }
  // High load: one request every 0.25 ms (4 per ms, above the 1/1.1 ms an unbatched instance serves).
  let busyUntil = 0;
  let seen = inst.batches.length;
  for (let n = 0; n < 400; n++) {
    send(`h${n}`);
    await flush();
    if (inst.batches.length > seen) {
      seen = inst.batches.length;
      busyUntil = clock.now() + 1 + 0.1 * inst.batches.at(-1)!.length;
    }
    clock.advance(0.25);
    if (inst.busy && clock.now() >= busyUntil) await inst.complete();
  }
  while (inst.busy) await run();
  clock.advance(10);
  while (inst.busy) await run();
  // The instance is free and the measured rate high: a new request waits for company.
  const before = inst.batches.length;
  send('x0');
  await flush();
  assert.equal(inst.batches.length, before, 'x0 waits on a free instance');
  for (let k = 1; k < 4; k++) {
    clock.advance(0.25);
    send(`x${k}`);
    await flush();
  }
  clock.advance(10);
  await flush();
  const withX0 = inst.labels.find((b) => b.includes('x0'))!;
  assert.ok(withX0.length >= 2 && withX0[1] === 'x1', `a request that came during the delay joined x0's batch (${withX0.join(',')})`);
});

test('the parameter is checked at load', () => {
  const inst = new TestInstance();
  const bad = (value: string, over = {}) => () => createScheduler(modelConfig({ dynamic_batching: db(), parameters: { [ADAPTIVE_DELAY_PARAMETER]: { string_value: value } }, ...over }), [inst], { model: 'm' });
  assert.throws(bad('soon'), (e) => Errors.adaptiveDelayInvalid.is(e) && /positive whole number/.test((e as Error).message));
  assert.throws(bad('0'), (e) => Errors.adaptiveDelayInvalid.is(e));
  assert.throws(bad('5000', { max_batch_size: 0 }), (e) => Errors.adaptiveDelayInvalid.is(e) && /needs dynamic_batching/.test((e as Error).message));
});
