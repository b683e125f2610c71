import type { Clock } from './clock.js';

/**
 * Run `fn` soon: on a microtask normally (a lone request dispatches before any other I/O, and
 * requests enqueued in the same tick batch together), but on a setImmediate once the current
 * event-loop turn has run for more than YIELD_AFTER_MS.
 *
 * Why: backends can complete synchronously (onnxruntime's native run, the identity backend), so a
 * caller that awaits request after request in one chain (an in-process loop, a BLS script calling
 * a model sequentially) would otherwise never give the event loop a turn, and I/O and timers
 * (other clients, deadlines) would starve. Requests that arrive by I/O each start a new turn and
 * never pay the hop. A freed instance pumps the same way. 1 ms matches the event-loop delay
 * budget (docs/PERFORMANCE.md, T11). Turns are measured on the scheduler's clock, so tests on a
 * ManualClock stay deterministic.
 */
const YIELD_AFTER_MS = 1;
const turnStarted = new WeakMap<Clock, number>();

function markTurn(clock: Clock, now: number): number {
  const started = turnStarted.get(clock);
  if (started !== undefined) return started;
  turnStarted.set(clock, now);
  setImmediate(() => turnStarted.delete(clock));
  return now;
}

export function scheduleSoon(fn: () => void, clock: Clock): void {
  const now = clock.now();
  if (now - markTurn(clock, now) > YIELD_AFTER_MS) setImmediate(fn);
  else queueMicrotask(fn);
}
