import type { ModelConfig } from '../config/index.js';
import { Errors } from '../errors.js';

/** The model `parameters` key that turns the adaptive delay on: the p99 latency target in µs. */
export const ADAPTIVE_DELAY_PARAMETER = 'adaptive_queue_delay_target_p99_us';

/**
 * Utilization the delay aims to stay under. Queueing delay, and so the tail, grows as 1/(1-ρ):
 * at 0.8 a request waits on average 4 services, beyond that the tail climbs steeply.
 */
const TARGET_UTILIZATION = 0.8;
/** Arrival-rate memory (ms): long enough to smooth bursts, short enough to follow a load change. */
const RATE_TAU_MS = 200;
/** Execution-time memory: each new execution's weight against the older ones (about 20 remembered). */
const EXEC_FORGET = 0.95;

export interface AdaptiveDelayOptions {
  /** The p99 latency to hold (ms), queue wait included. */
  readonly targetMs: number;
  /** Upper bound (ms): max_queue_delay_microseconds, or the target when that is 0. */
  readonly maxDelayMs: number;
  /** Most rows in one batch. */
  readonly capRows: number;
  readonly instances: number;
}

/**
 * Chooses the dynamic batcher's queue delay from what it measures: the arrival rate λ (rows/ms,
 * exponentially decayed) and the execution time as a line e(b) = α + β·b over batch rows
 * (least squares with forgetting). A delay d gathers about b = 1 + λ·d rows, and an instance
 * then serves b rows per e(b), so utilization is ρ = λ·e(b) / (n·b). The delay is the smallest
 * that lets the rows already queued grow to a batch that keeps ρ under TARGET_UTILIZATION (0 at
 * low load, where batching buys nothing but latency, and when the queue already holds enough),
 * never more than the latency budget allows: the oldest request waits d, then at worst a running
 * batch and its own, so d + 2·e(b) stays under the target, and never more than `maxDelayMs`.
 */
export class AdaptiveDelay {
  readonly #o: AdaptiveDelayOptions;
  #mass = 0;
  #last = 0;
  // Decayed least-squares sums over (rows, ms) of past executions.
  #sw = 0;
  #sb = 0;
  #se = 0;
  #sbb = 0;
  #sbe = 0;

  constructor(o: AdaptiveDelayOptions) {
    this.#o = o;
  }

  onArrival(now: number, rows: number): void {
    this.#mass = this.#decayed(now) + rows;
    this.#last = now;
  }

  onExecuted(rows: number, ms: number): void {
    const f = EXEC_FORGET;
    this.#sw = this.#sw * f + 1;
    this.#sb = this.#sb * f + rows;
    this.#se = this.#se * f + ms;
    this.#sbb = this.#sbb * f + rows * rows;
    this.#sbe = this.#sbe * f + rows * ms;
  }

  /** Arrival rate now, rows per ms. */
  rate(now: number): number {
    return this.#decayed(now) / RATE_TAU_MS;
  }

  /** e(b) = α + β·b; with one batch size seen so far, the conservative line through the origin. */
  execLine(): { alpha: number; beta: number } {
    if (this.#sw === 0) return { alpha: 0, beta: 0 };
    const mb = this.#sb / this.#sw;
    const me = this.#se / this.#sw;
    const vb = this.#sbb / this.#sw - mb * mb;
    if (vb < 1e-6 * Math.max(1, mb * mb)) return { alpha: 0, beta: me / Math.max(1, mb) };
    const beta = Math.max(0, (this.#sbe / this.#sw - mb * me) / vb);
    return { alpha: Math.max(0, me - beta * mb), beta };
  }

  /** The delay for a batch whose queue holds `queuedRows` now. */
  delayMs(now: number, queuedRows = 1): number {
    const lambda = this.rate(now);
    if (lambda <= 0 || this.#sw === 0) return 0;
    const { alpha, beta } = this.execLine();
    const { targetMs, maxDelayMs, capRows, instances } = this.#o;
    const budget = (targetMs - 2 * (alpha + beta)) / (1 + 2 * beta * lambda);
    const room = instances * TARGET_UTILIZATION - lambda * beta;
    const rowsNeeded = room > 0 ? (lambda * alpha) / room : Infinity;
    // Past this size the fixed cost is under a fifth of a row's: waiting for more (in overload,
    // where no batch brings utilization down) would buy little throughput for its latency.
    const amortised = beta > 0 ? Math.ceil((4 * alpha) / beta) : capRows;
    const rows = Math.min(rowsNeeded, amortised, capRows);
    if (rows <= queuedRows) return 0;
    return Math.max(0, Math.min((rows - queuedRows) / lambda, budget, maxDelayMs));
  }

  #decayed(now: number): number {
    return this.#mass * Math.exp(-(now - this.#last) / RATE_TAU_MS);
  }
}

/** The adaptive delay a config asks for through its `parameters`, or undefined. */
export function adaptiveDelayOf(model: string, config: ModelConfig, capRows: number, instances: number): AdaptiveDelay | undefined {
  const raw = config.parameters[ADAPTIVE_DELAY_PARAMETER]?.string_value;
  if (raw === undefined) return undefined;
  const us = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!(us > 0) || !Number.isSafeInteger(us)) throw Errors.adaptiveDelayInvalid(model, raw, 'must be a positive whole number of microseconds (the p99 latency to hold, e.g. "5000")');
  if (!config.dynamic_batching || config.max_batch_size <= 0 || config.sequence_batching) {
    throw Errors.adaptiveDelayInvalid(model, raw, 'needs dynamic_batching on a model with max_batch_size > 0; add dynamic_batching { max_queue_delay_microseconds: <upper bound> } or remove the parameter');
  }
  const maxUs = config.dynamic_batching.max_queue_delay_microseconds || us;
  return new AdaptiveDelay({ targetMs: us / 1000, maxDelayMs: Math.min(maxUs, us) / 1000, capRows, instances });
}
