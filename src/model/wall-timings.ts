import type { ExecuteTimings } from '../backend/index.js';

/** What the timing of a batch needs of each of its items (clock ms). */
interface TimedItem {
  readonly startedAt?: number | undefined;
  /** When its final response was handed to its consumer. */
  readonly finalAt?: number | undefined;
  /** How long that consumer then ran. */
  readonly finalConsumedMs: number;
}

/**
 * The whole execution as compute_infer (clock ms -> ns), for a backend that times nothing itself
 * (identity, a pipeline): from the batch's start to its last final response (to now when a
 * request has none: failed, or a stream still open), less the time the consumers of the batch's
 * other final responses ran. A final response runs its consumer synchronously (a pipeline's next
 * steps, a front end's encoding), and execute's promise settles only after the microtasks queued
 * meanwhile, other requests' included: timed to the end of execute(), `tributary perf` on a
 * pipeline of identity steps read 299 µs of compute for a 98 µs step.
 */
export function wallTimings(items: readonly TimedItem[], now: number): ExecuteTimings {
  const start = items[0]?.startedAt ?? now;
  let end = 0;
  let consumed = 0;
  let lastConsumed = 0;
  let open = false;
  for (const it of items) {
    if (it.finalAt === undefined) {
      open = true;
      continue;
    }
    consumed += it.finalConsumedMs;
    if (it.finalAt > end) {
      end = it.finalAt;
      lastConsumed = it.finalConsumedMs;
    }
  }
  // The last consumer ran after `end`, outside the span; with a request still open, every one ran before now.
  if (open) end = now;
  else consumed -= lastConsumed;
  return { computeInputNs: 0, computeInferNs: Math.max(0, end - start - consumed) * 1e6, computeOutputNs: 0 };
}
