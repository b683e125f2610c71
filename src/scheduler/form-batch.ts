import type { WorkItem } from './scheduler.js';

/** How batches are cut, compiled once from the config. */
export interface BatchPolicy {
  /** Most rows in one batch: the largest preferred size if any, else max_batch_size (at least 1). */
  readonly capRows: number;
  readonly preferred: ReadonlySet<number>;
  /** max_queue_delay in ms; 0 sends whatever is there as soon as an instance is free. */
  readonly delayMs: number;
  /** Most requests in one batch (1 for the default scheduler and for unbatched models). */
  readonly maxItems: number;
}

export type BatchChoice<T> = { readonly run: T[]; readonly until?: undefined } | { readonly run?: undefined; readonly until: number };

/**
 * Triton's dynamic-batch decision (dynamic_batch_scheduler.cc, GetDynamicBatch), over candidates
 * in queue order:
 * - grow the batch while it fits `capRows` and the next request has the same batch key;
 * - a prefix whose rows equal a preferred size is remembered; the largest one runs at once;
 * - otherwise run now if the batch cannot grow (full, or the next request does not fit or has
 *   another shape), or the delay is 0 or has passed for its oldest request;
 * - otherwise wait until the oldest request has waited `delayMs`.
 * One deliberate difference: when the next request does not fit, Triton still waits out the delay
 * although nothing can join; here the batch runs at once.
 */
export function formBatch<T extends { readonly item: Pick<WorkItem, 'batchKey' | 'batchSize' | 'enqueuedAt'> }>(candidates: Iterable<T>, policy: BatchPolicy, now: number): BatchChoice<T> | undefined {
  const run: T[] = [];
  let rows = 0;
  let bestPreferred = 0;
  let cannotGrow = false;
  let key = '';
  let oldest = Infinity;
  for (const c of candidates) {
    const b = Math.max(1, c.item.batchSize);
    if (run.length === 0) key = c.item.batchKey;
    else if (rows + b > policy.capRows || c.item.batchKey !== key || run.length >= policy.maxItems) {
      cannotGrow = true;
      break;
    }
    run.push(c);
    rows += b;
    if (c.item.enqueuedAt < oldest) oldest = c.item.enqueuedAt;
    if (policy.preferred.has(rows)) bestPreferred = run.length;
    if (rows >= policy.capRows || run.length >= policy.maxItems) {
      cannotGrow = true;
      break;
    }
  }
  if (run.length === 0) return undefined;
  const delayExceeded = policy.delayMs > 0 && now - oldest >= policy.delayMs;
  if (bestPreferred > 0 && !delayExceeded) {
    if (bestPreferred < run.length) run.length = bestPreferred;
    return { run };
  }
  if (cannotGrow || policy.delayMs === 0 || delayExceeded) return { run };
  return { until: oldest + policy.delayMs };
}
