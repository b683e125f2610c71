import type { ModelQueuePolicy } from '../config/index.js';
import { ItemList, type ListNode } from './item-list.js';
import type { WorkItem } from './scheduler.js';

/** A queued request: list links plus what the queue needs to time it out or cancel it. */
export interface QueueEntry extends ListNode {
  readonly item: WorkItem;
  readonly level: number;
  delayed: boolean;
}

/**
 * Triton's priority queue: one FIFO per level (1 = highest), each with a "delayed" FIFO behind it
 * for requests whose timeout passed under a DELAY policy. Batches are read level by level, each
 * level's regular requests before its delayed ones. `max_queue_size` counts both.
 */
export class PriorityQueue {
  readonly #main: ItemList<QueueEntry>[] = [];
  readonly #delayed: ItemList<QueueEntry>[] = [];
  readonly #policies: readonly ModelQueuePolicy[];
  #size = 0;

  /** `policies[level]` for level 1..n. */
  constructor(policies: readonly ModelQueuePolicy[]) {
    this.#policies = policies;
    for (let l = 0; l < policies.length; l++) {
      this.#main.push(new ItemList());
      this.#delayed.push(new ItemList());
    }
  }

  get size(): number {
    return this.#size;
  }

  get levels(): number {
    return this.#policies.length - 1;
  }

  policy(level: number): ModelQueuePolicy {
    return this.#policies[level]!;
  }

  /** The level a request queues at: its priority if valid, else `fallback`. */
  levelOf(priority: number, fallback: number): number {
    return Number.isInteger(priority) && priority >= 1 && priority <= this.levels ? priority : fallback;
  }

  /** False when the level is at its max_queue_size. */
  hasRoom(level: number): boolean {
    const max = this.#policies[level]!.max_queue_size;
    return max <= 0 || this.#main[level]!.size + this.#delayed[level]!.size < max;
  }

  push(e: QueueEntry): void {
    (e.delayed ? this.#delayed : this.#main)[e.level]!.push(e);
    this.#size++;
  }

  remove(e: QueueEntry): boolean {
    const list = (e.delayed ? this.#delayed : this.#main)[e.level]!;
    if (!list.has(e)) return false;
    list.remove(e);
    this.#size--;
    return true;
  }

  /** Move a timed-out request behind the others of its level (DELAY action). */
  delay(e: QueueEntry): void {
    if (e.delayed || !this.remove(e)) return;
    e.delayed = true;
    this.push(e);
  }

  /** Requests in batch order. */
  *[Symbol.iterator](): IterableIterator<QueueEntry> {
    for (let l = 1; l < this.#main.length; l++) {
      yield* this.#main[l]!;
      yield* this.#delayed[l]!;
    }
  }
}
