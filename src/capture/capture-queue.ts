/**
 * The one bounded queue between the request path and the sinks. `push` never waits: past either
 * bound (records, tensor bytes) a record is dropped and counted. The queue is drained off the
 * request path (setImmediate), a bounded batch per turn, so a burst of records never holds the event
 * loop for long; each record is turned into its JSON line once, for every sink.
 */
import type { CapturedRecord } from './captured-record.js';

/** Where records went: taken into the queue, written by a sink, or dropped (by where and why). */
export interface CaptureCounts {
  captured: number;
  /** By sink (`dir`, `url`, `redis`). */
  written: Record<string, number>;
  /** By place: `queue` (full), `request` (past request-records), `failures` (past the failures per second), `error` (could not be recorded), or a sink. */
  dropped: Record<string, number>;
}

export interface QueueLimits {
  records: number;
  bytes: number;
}

/** Records handed to the sinks in one turn of the event loop. */
const BATCH = 256;

export class CaptureQueue {
  readonly counts: CaptureCounts = { captured: 0, written: {}, dropped: {} };
  readonly #limits: QueueLimits;
  readonly #drain: (batch: readonly CapturedRecord[]) => void;
  #items: CapturedRecord[] = [];
  /** Records before it were handed over already (a head index: no copy of the backlog per batch). */
  #head = 0;
  #bytes = 0;
  #scheduled = false;
  #closed = false;

  constructor(limits: QueueLimits, drain: (batch: readonly CapturedRecord[]) => void) {
    this.#limits = limits;
    this.#drain = drain;
  }

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(r: CapturedRecord): void {
    if (this.#closed || this.length >= this.#limits.records || this.#bytes + r.bytes > this.#limits.bytes) {
      this.drop('queue');
      return;
    }
    this.#items.push(r);
    this.#bytes += r.bytes;
    this.counts.captured++;
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#turn());
    }
  }

  drop(where: string, n = 1): void {
    this.counts.dropped[where] = (this.counts.dropped[where] ?? 0) + n;
  }

  wrote(sink: string, n: number): void {
    this.counts.written[sink] = (this.counts.written[sink] ?? 0) + n;
  }

  /** Hands everything queued to the sinks now and takes no more (at close). */
  close(): void {
    this.#closed = true;
    while (this.length > 0) this.#take();
  }

  #turn(): void {
    this.#scheduled = false;
    this.#take();
    if (this.length > 0 && !this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#turn());
    }
  }

  #take(): void {
    const end = Math.min(this.#items.length, this.#head + BATCH);
    const batch = this.#items.slice(this.#head, end);
    this.#head = end;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= 4 * BATCH) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    for (const r of batch) this.#bytes -= r.bytes;
    try {
      this.#drain(batch);
    } catch {
      this.drop('error', batch.length);
    }
  }
}
