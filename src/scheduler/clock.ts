/**
 * Time is injected so batching, delay and timeout tests are exact and never sleep.
 * `now()` is in milliseconds (fractional) on a monotonic clock.
 */
export interface Clock {
  now(): number;
  setTimer(fn: () => void, delayMs: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

export type TimerHandle = { readonly __timer: unique symbol } | object;

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, Math.max(0, ms)) as unknown as TimerHandle,
  clearTimer: (h) => clearTimeout(h as unknown as ReturnType<typeof setTimeout>),
};

/** A virtual clock for tests: time moves only when `advance()` is called. */
export class ManualClock implements Clock {
  #now = 0;
  #seq = 0;
  readonly #timers = new Map<number, { at: number; fn: () => void; seq: number }>();

  now(): number {
    return this.#now;
  }

  setTimer(fn: () => void, delayMs: number): TimerHandle {
    const id = ++this.#seq;
    this.#timers.set(id, { at: this.#now + Math.max(0, delayMs), fn, seq: id });
    return { id } as unknown as TimerHandle;
  }

  clearTimer(handle: TimerHandle): void {
    this.#timers.delete((handle as unknown as { id: number }).id);
  }

  /** Move time forward, firing due timers in order (timers set by timers fire too if due). */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void; seq: number }] | undefined;
      for (const e of this.#timers) if (e[1].at <= target && (!next || e[1].at < next[1].at || (e[1].at === next[1].at && e[1].seq < next[1].seq))) next = e;
      if (!next) break;
      this.#timers.delete(next[0]);
      this.#now = next[1].at;
      next[1].fn();
    }
    this.#now = target;
  }

  pendingTimers(): number {
    return this.#timers.size;
  }
}
