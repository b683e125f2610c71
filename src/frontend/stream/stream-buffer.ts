import type { ResponseDemand } from '../../inference/index.js';
import { MESSAGE_OVERHEAD, type StreamBudget, type StreamProtocol } from './stream-budget.js';

/**
 * The account of one stream's responses between the moment the front end hands one to its writer
 * and the moment the writer's callback says it left (to the socket, within the client's HTTP/2
 * window for gRPC). It is the stream's demand: its producers pause once an eighth of
 * `streamBytes` waits (or the server-wide total is saturated and this stream holds anything), and
 * resume when it is back to a sixteenth. The rest of the bound is the slack for what a producer
 * sends before it learns it should pause (a script: one batch of at most 256 responses or 64 KiB,
 * bls/send-queue.ts), so several requests of one stream can overshoot together without failing.
 * A producer that cannot pause is bounded by `admit`.
 */
export class StreamBuffer implements ResponseDemand {
  readonly #budget: StreamBudget;
  readonly #protocol: StreamProtocol;
  bytes = 0;
  messages = 0;
  #paused = false;
  #closed = false;
  #refused: 'stream' | 'server' = 'stream';
  #waiters: Set<() => void> | undefined;

  constructor(budget: StreamBudget, protocol: StreamProtocol) {
    this.#budget = budget;
    this.#protocol = protocol;
  }

  get ready(): boolean {
    return !this.#closed && !this.#paused && (this.bytes === 0 || !this.#budget.saturated);
  }

  get closed(): boolean {
    return this.#closed;
  }

  whenReady(wake: () => void): () => void {
    if (this.ready || this.#closed) {
      queueMicrotask(wake);
      return () => {};
    }
    (this.#waiters ??= new Set()).add(wake);
    if (!this.#paused) this.#budget.wait(this);
    return () => { this.#waiters?.delete(wake); };
  }

  /**
   * Account a message of `n` bytes about to be written. False (nothing accounted) when it would
   * take this stream past `streamBytes` or the server past `totalBytes`: the caller fails its
   * request instead. A message into an empty stream is always taken, however large, and `force`
   * takes one regardless (the error that tells the client why its request failed).
   */
  admit(n: number, force = false): boolean {
    if (this.#closed) return false;
    const size = n + MESSAGE_OVERHEAD;
    const l = this.#budget.limits;
    if (!force && this.bytes > 0) {
      if (this.bytes + size > l.streamBytes) { this.#refused = 'stream'; return false; }
      if (this.#budget.bytes + size > l.totalBytes) { this.#refused = 'server'; return false; }
    }
    this.bytes += size;
    this.messages++;
    this.#budget.add(this.#protocol, size);
    if (!this.#paused && this.bytes >= l.streamBytes / 8) {
      this.#paused = true;
      const f = this.#budget.figures[this.#protocol];
      f.paused++;
      f.pauses++;
    }
    return true;
  }

  /** A message admitted with `n` bytes has left (its write callback ran). */
  release(n: number): void {
    if (this.#closed) return;
    const size = n + MESSAGE_OVERHEAD;
    this.bytes -= size;
    this.messages--;
    this.#budget.add(this.#protocol, -size);
    if (this.#paused && this.bytes <= this.#budget.limits.streamBytes / 16) {
      this.#paused = false;
      this.#budget.figures[this.#protocol].paused--;
    }
    this.recheck();
  }

  /**
   * A request of this stream fails because `admit` refused its response: counted, and what the
   * error names (what waits, the bound passed and its flag).
   */
  overflowed(): { held: number; bound: number; flag: string } {
    this.#budget.figures[this.#protocol].overflows++;
    const l = this.#budget.limits;
    return this.#refused === 'stream'
      ? { held: this.bytes, bound: l.streamBytes, flag: '--stream-buffer-bytes' }
      : { held: this.#budget.bytes, bound: l.totalBytes, flag: '--stream-buffer-total-bytes' };
  }

  /** @internal wake the waiting producers if the stream can take more now. */
  recheck(): void {
    if (!this.#waiters?.size) return;
    if (!this.ready) {
      if (!this.#paused) this.#budget.wait(this);
      return;
    }
    this.#wakeAll();
  }

  /**
   * The stream ended (finished, cancelled, the connection lost): whatever it still held is given
   * back to the server's total, and waiting producers are woken to find their requests gone.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const f = this.#budget.figures[this.#protocol];
    if (this.#paused) f.paused--;
    this.#paused = false;
    this.#budget.add(this.#protocol, -this.bytes);
    this.bytes = 0;
    this.messages = 0;
    this.#wakeAll();
  }

  #wakeAll(): void {
    this.#budget.forget(this);
    const w = this.#waiters;
    this.#waiters = undefined;
    if (w) for (const f of w) f();
  }
}
