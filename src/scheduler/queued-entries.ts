import type { TributaryError } from '../errors.js';
import type { Clock, TimerHandle } from './clock.js';
import type { ListNode } from './item-list.js';
import { abortReason } from './queue-errors.js';
import type { WorkItem } from './scheduler.js';

/** A queued request: list links, its timeout timer and its cancel hook. Schedulers extend it. */
export class QueuedEntry implements ListNode {
  prev: ListNode | undefined;
  next: ListNode | undefined;
  list: object | undefined;
  timer: TimerHandle | undefined;
  onAbort: (() => void) | undefined;
  constructor(readonly item: WorkItem) {}
}

export interface QueuedEntriesOptions<E extends QueuedEntry> {
  readonly model: string;
  readonly clock: Clock;
  /** Take `e` out of the scheduler's queue; false when it had already left. */
  unlink(e: E): boolean;
  /** `e` was dropped: update in-flight and queue counts (runs before the item fails). */
  onDrop(e: E): void;
  /** After a dropped item failed (a sequence's END still ends the sequence). */
  afterDrop?(e: E): void;
}

/**
 * What every scheduler does with a queued request between enqueue and dispatch: time it out on
 * its own clock timer, cancel it on its signal's abort, take it out with both cleared, and drop
 * it with a catalog error. The queue itself (priority levels, per-sequence lists) stays the
 * scheduler's, reached through `unlink`.
 */
export class QueuedEntries<E extends QueuedEntry> {
  readonly #o: QueuedEntriesOptions<E>;

  constructor(o: QueuedEntriesOptions<E>) {
    this.#o = o;
  }

  /** Cancel hook: an abort drops the entry with the signal's reason (a deadline's catalog error, else CANCELLED). */
  watch(e: E): void {
    const signal = e.item.signal;
    e.onAbort = () => this.drop(e, abortReason(signal, this.#o.model));
    signal.addEventListener('abort', e.onAbort, { once: true });
  }

  /** Run `fn` at clock time `at` (the entry's one timer; it must be unset). */
  arm(e: E, at: number, fn: () => void): void {
    e.timer = this.#o.clock.setTimer(fn, at - this.#o.clock.now());
  }

  /** Take an entry out of the queue with its timer and abort listener; false when it had left. */
  leave(e: E): boolean {
    if (!this.#o.unlink(e)) return false;
    if (e.timer !== undefined) this.#o.clock.clearTimer(e.timer);
    e.timer = undefined;
    if (e.onAbort) e.item.signal.removeEventListener('abort', e.onAbort);
    return true;
  }

  /** Fail a queued request (timeout, cancel, stop); false when it had already left. */
  drop(e: E, error: TributaryError): boolean {
    if (!this.leave(e)) return false;
    this.#o.onDrop(e);
    e.item.fail(error);
    this.#o.afterDrop?.(e);
    return true;
  }
}
