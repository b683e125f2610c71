import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRestartTracker } from '../../src/cli/replica-restarts.js';

const policy = { quickMs: 1000, maxQuickFailures: 4, baseDelayMs: 100, maxDelayMs: 300 };

test('a replica that served a while is replaced after the base delay, every time', () => {
  const next = createRestartTracker(policy);
  for (let i = 0; i < 10; i++) assert.deepEqual(next(5000), { restart: true, delayMs: 100, quickFailures: 0 });
});

test('quick failures in a row double the delay up to the cap, then the primary gives up', () => {
  const next = createRestartTracker(policy);
  assert.deepEqual(next(10), { restart: true, delayMs: 100, quickFailures: 1 });
  assert.deepEqual(next(10), { restart: true, delayMs: 200, quickFailures: 2 });
  assert.deepEqual(next(10), { restart: true, delayMs: 300, quickFailures: 3 });
  assert.deepEqual(next(10), { restart: false, quickFailures: 4 });
});

test('a replica that lived past the quick window resets the count', () => {
  const next = createRestartTracker(policy);
  next(10);
  next(10);
  next(10);
  assert.deepEqual(next(1000), { restart: true, delayMs: 100, quickFailures: 0 });
  assert.deepEqual(next(10), { restart: true, delayMs: 100, quickFailures: 1 });
});
