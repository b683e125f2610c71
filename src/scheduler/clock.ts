/**
 * Time is injected so batching, delay and timeout tests are exact and never sleep.
 * `now()` is in milliseconds (fractional) on a monotonic clock.
 */
export interface Clock {
  now(): number;
  setTimer(fn: () => void, delayMs: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

/** What `setTimer` returns; it cancels itself, so a clock clears any handle without knowing its shape. */
export interface TimerHandle {
  cancel(): void;
}

class SystemTimer implements TimerHandle {
  timeout: ReturnType<typeof setTimeout> | undefined;
  immediate: ReturnType<typeof setImmediate> | undefined;
  cancelled = false;

  cancel(): void {
    this.cancelled = true;
    if (this.timeout) clearTimeout(this.timeout);
    if (this.immediate) clearImmediate(this.immediate);
  }
}

/**
 * Node's timers have 1 ms granularity, so a sub-millisecond wait (Triton configs commonly set
 * max_queue_delay_microseconds to 100-500) would last at least 1 ms: measured here, a 200 µs
 * batching delay cost 1.3 ms of queue time per request at c=1. Waits under 1 ms instead re-check
 * on setImmediate, once per event-loop turn, so I/O keeps flowing (arrivals still join the batch)
 * and the wait ends within a turn of its due time; the cost is a busy loop bounded by the delay.
 */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => {
    const t = new SystemTimer();
    if (ms >= 1) {
      t.timeout = setTimeout(fn, ms);
      return t;
    }
    const due = performance.now() + Math.max(0, ms);
    const tick = () => {
      if (t.cancelled) return;
      if (performance.now() >= due) fn();
      else t.immediate = setImmediate(tick);
    };
    t.immediate = setImmediate(tick);
    return t;
  },
  clearTimer: (h) => h.cancel(),
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
    return { cancel: () => this.#timers.delete(id) };
  }

  clearTimer(handle: TimerHandle): void {
    handle.cancel();
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
