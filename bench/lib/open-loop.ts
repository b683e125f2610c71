/**
 * An open-loop load: requests arrive as a Poisson process at a fixed rate whatever the server
 * does, which is how a batching delay meets traffic (a closed loop of N clients can never send
 * while all N wait, so any delay there is pure loss). Latency counts from each request's scheduled
 * time, so a client that falls behind does not hide queueing (no coordinated omission).
 */
import { seededRandom } from '../../scripts/onnx/index.js';

export interface OpenLoopResult {
  ratePerS: number;
  sent: number;
  completed: number;
  errors: number;
  throughput: number;
  p50Us: number;
  p99Us: number;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN;
}

/** Send at `ratePerS` for `warmupMs` (not measured) then `windowMs`; resolves when every response is in. */
export async function runOpenLoop(o: { ratePerS: number; windowMs: number; warmupMs: number; send: () => Promise<unknown>; seed?: number }): Promise<OpenLoopResult> {
  const rand = seededRandom(o.seed ?? 1);
  const start = performance.now();
  const measureFrom = start + o.warmupMs;
  const end = measureFrom + o.windowMs;
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  let errors = 0;
  let sent = 0;
  let lastDone = measureFrom;
  let next = start;
  // Timers tick about once per ms; every arrival due by then is sent, timed from its due time.
  while (next < end) {
    const now = performance.now();
    while (next <= now && next < end) {
      const due = next;
      const measured = due >= measureFrom;
      if (measured) sent++;
      pending.push(o.send().then(
        () => {
          if (!measured) return;
          lastDone = performance.now();
          latencies.push((lastDone - due) * 1000);
        },
        () => { if (measured) errors++; },
      ));
      next += (-Math.log(1 - rand()) * 1000) / o.ratePerS;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  return {
    ratePerS: o.ratePerS, sent, completed: latencies.length, errors,
    // Until the last measured response: an overloaded server finishes the window's work late.
    throughput: (latencies.length * 1000) / Math.max(o.windowMs, lastDone - measureFrom),
    p50Us: quantile(latencies, 0.5), p99Us: quantile(latencies, 0.99),
  };
}
