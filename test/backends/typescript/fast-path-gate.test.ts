import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FastPathGate } from '../../../backends/typescript/fast-path-gate.js';
import { createLogger, getLogSettings, setLogSink, updateLogSettings } from '../../../src/logger.js';

/** A gate with a 1 ms bound. */
function gate(): { g: FastPathGate } {
  return { g: new FastPathGate(1, 'model m instance 0', createLogger('test')) };
}

/** Record `n` short entries (0.01 ms) through take(), as the instance does. */
function fast(g: FastPathGate, n: number): number {
  let on = 0;
  for (let i = 0; i < n; i++) if (g.take()) { g.record(0.01); on++; }
  return on;
}

describe('FastPathGate', () => {
  const verbose = getLogSettings().log_verbose_level;
  const lines: string[] = [];
  const withLog = (f: () => void) => {
    lines.length = 0;
    setLogSink((l) => { lines.push(l); });
    updateLogSettings({ log_verbose_level: 1 });
    try { f(); } finally {
      updateLogSettings({ log_verbose_level: verbose });
      setLogSink((l) => process.stderr.write(`${l}\n`));
    }
  };

  test('an instance joins after its first short entries; a first stop pauses it, stops soon after one another double a cooldown', () => withLog(() => {
    const { g } = gate();
    assert.equal(g.take(), false, 'no entry measured yet');
    g.recordPool(0.7); // the first entry compiles: not counted
    g.recordPool(0.2);
    assert.equal(g.open, true);
    assert.equal(fast(g, 10), 10);
    g.stop(1.2, 1.1);
    assert.match(lines.at(-1)!, /ran past fast_path_ms \(1 ms\) on the main thread and was stopped after 10 fast entries; re-run on its isolate thread, which the next 8 calls also use$/);
    assert.equal(g.open, false);
    assert.equal(fast(g, 8), 0, 'a first stop pauses for 8 calls');
    // The cooldown is the whole penalty: the average is the script's, and it is back on after it.
    assert.equal(g.open, true);
    assert.equal(fast(g, 10), 10);
    assert.match(lines.at(-1)!, /now runs on the main thread again, after its cooldown/);
    g.stop(1.2, 1.1);
    assert.match(lines.at(-1)!, /stopped, 10 fast entries after the previous stop; re-run on its isolate thread, which the next 64 calls also use$/);
    assert.equal(fast(g, 64), 0);
    assert.equal(fast(g, 10), 10);
    g.stop(1.2, 1.1);
    assert.equal(fast(g, 128), 0, 'and doubles');
    assert.equal(fast(g, 1), 1);
  }));

  test('a stop 1024 fast entries or more after the previous one is rare: a pause again, not a doubling', () => withLog(() => {
    const { g } = gate();
    g.recordPool(0.7);
    g.recordPool(0.02);
    fast(g, 10);
    g.stop(1.5, 1.4);
    fast(g, 8);
    fast(g, 2000);
    g.stop(6, 5.5); // a garbage collection landing in one entry
    assert.match(lines.at(-1)!, /stopped after 2000 fast entries; re-run on its isolate thread, which the next 8 calls also use$/);
    assert.equal(fast(g, 8), 0);
    assert.equal(fast(g, 10), 10);
    // Another stop soon after: the long cooldown.
    g.stop(1.5, 1.4);
    assert.match(lines.at(-1)!, /which the next 64 calls also use$/);
    assert.equal(fast(g, 64), 0);
  }));

  test('preempted stops (little CPU time): a quiet pause first, then the same doubling when they come often', () => withLog(() => {
    const { g } = gate();
    g.recordPool(0.7);
    g.recordPool(0.02);
    fast(g, 5);
    g.stop(1.5, 0.1);
    assert.equal(lines.filter((l) => l.includes('stopped')).length, 0, 'logged at verbose level 2 only');
    // pass() counts calls that went to the isolate thread without asking against the pause.
    for (let i = 0; i < 8; i++) g.pass();
    assert.equal(g.take(), true);
    g.stop(1.5, 0.1);
    assert.match(lines.at(-1)!, /stopped after 0\.10 ms of CPU time \(the thread was preempted\), 1 fast entries after the previous stop; .* next 64 calls/);
  }));

  test('a reading counts at most the bound: one long entry does not hold a fast script off', () => {
    const { g } = gate();
    g.recordPool(0.7);
    g.recordPool(0.01);
    assert.equal(g.take(), true);
    g.record(15);
    assert.equal(g.take(), true, 'an average of 0.01 and one reading of 1 (capped) is under half the bound');
    for (let i = 0; i < 8; i++) g.record(0.9);
    assert.equal(g.take(), false, 'entries near the bound take it off');
  });

  test('entries on the pool thread move the average only while the instance is off the main thread', () => {
    const { g } = gate();
    g.recordPool(0.7);
    g.recordPool(0.02);
    assert.equal(g.take(), true);
    // A loaded machine inflates what a pool entry reads (the thread hop): ignored while on.
    for (let i = 0; i < 50; i++) g.recordPool(3);
    assert.equal(g.take(), true);
    // Main-thread entries still count.
    for (let i = 0; i < 50; i++) g.record(0.9);
    assert.equal(g.take(), false);
  });

  test('a bound of 0 turns the fast path off', () => {
    const g = new FastPathGate(0, 'm', createLogger('test'));
    g.recordPool(0.7);
    g.recordPool(0.01);
    assert.equal(g.take(), false);
    assert.equal(g.open, false);
  });
});
