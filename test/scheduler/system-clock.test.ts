import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../src/scheduler/clock.js';

test('systemClock: a sub-millisecond timer never fires before its due time', async () => {
  const waits: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await new Promise<void>((resolve) => systemClock.setTimer(resolve, 0.2));
    waits.push(performance.now() - t0);
  }
  waits.sort((a, b) => a - b);
  assert.ok(waits[0]! >= 0.2, `fired early: ${waits[0]} ms`);
  // How much sooner than setTimeout's 1 ms floor it fires is a speed figure: see
  // `npm run bench pipelines` (queue time per step at c=1), not a timed assertion here.
});

test('systemClock: cleared timers never fire, short or long', async () => {
  let fired = 0;
  systemClock.clearTimer(systemClock.setTimer(() => fired++, 0.1));
  systemClock.clearTimer(systemClock.setTimer(() => fired++, 2));
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(fired, 0);
});
