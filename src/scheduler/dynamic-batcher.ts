import type { BackendInstance } from '../backend/index.js';
import { scheduleSoon } from './schedule-soon.js';
import type { ModelQueuePolicy } from '../config/index.js';
import { Errors } from '../errors.js';
import { abortReason, stoppedError } from './queue-errors.js';
import { BatchRequest, toItem, type Outlet } from './batch-request.js';
import type { Clock, TimerHandle } from './clock.js';
import type { AdaptiveDelay } from './adaptive-delay.js';
import { formBatch, type BatchPolicy } from './form-batch.js';
import { InstancePool } from './instance-pool.js';
import { OrderingGate } from './ordering-gate.js';
import { PriorityQueue, type QueueEntry } from './priority-queue.js';
import { queueTimeoutMs } from './queue-policy.js';
import { QueuedEntries, QueuedEntry } from './queued-entries.js';
import type { LimitedInstance } from './rate-limiter.js';
import type { Scheduler, SchedulerHooks, WorkItem } from './scheduler.js';

export interface DynamicBatcherOptions {
  readonly model: string;
  readonly clock: Clock;
  readonly hooks?: SchedulerHooks | undefined;
  readonly policy: BatchPolicy;
  /** Queue policy per priority level, index 1..levels. */
  readonly queuePolicies: readonly ModelQueuePolicy[];
  /** Level for requests whose priority is 0 or out of range. */
  readonly defaultLevel: number;
  readonly preserveOrdering: boolean;
  readonly decoupled: boolean;
  /** Each instance's place in the server's rate limiter, when it has one. */
  readonly limits?: readonly LimitedInstance[] | undefined;
  /** Chooses the queue delay per batch instead of `policy.delayMs` (which stays its bound). */
  readonly adaptive?: AdaptiveDelay | undefined;
}

class Entry extends QueuedEntry implements QueueEntry {
  delayed = false;
  /** When the request fails with a timeout (its deadline, or a REJECT policy timeout). */
  rejectAt: number | undefined;
  /** When a DELAY policy moves it behind the others of its level. */
  delayAt: number | undefined;
  constructor(item: WorkItem, readonly level: number) {
    super(item);
  }
}

/**
 * Triton's dynamic batcher, and with `maxItems: 1` its default scheduler. Batches are formed only
 * when an instance is free, so requests that arrive while every instance is busy batch together
 * even with no queue delay. Queued requests time out and cancel on their own clock timer or abort
 * event, at once, also while a batch is executing (unlike Triton, server issue #7512, where
 * timeouts are applied only when the batcher next looks at the queue).
 */
export class DynamicBatcher implements Scheduler {
  readonly #o: DynamicBatcherOptions;
  readonly #queue: PriorityQueue;
  readonly #pool: InstancePool;
  /** `o.policy`, with the delay the adaptive controller last chose. */
  readonly #policy: { -readonly [K in keyof BatchPolicy]: BatchPolicy[K] };
  readonly #outlet: Outlet;
  readonly #gate: OrderingGate | undefined;
  readonly #entries: QueuedEntries<Entry>;
  readonly #onFinish = (): void => {
    this.#inflight--;
  };
  readonly #pumpNow = (): void => this.#pump();
  /** A freed instance pumps through scheduleSoon too, so back-to-back synchronous completions
   * cannot chain forever inside one event-loop turn. */
  readonly #pumpSoon = (): void => {
    if (this.#pumpQueued) return;
    this.#pumpQueued = true;
    scheduleSoon(this.#pumpNow, this.#o.clock);
  };
  #inflight = 0;
  #pumpQueued = false;
  #delayTimer: TimerHandle | undefined;
  #stopped = false;

  constructor(instances: readonly BackendInstance[], o: DynamicBatcherOptions) {
    this.#o = o;
    this.#policy = { ...o.policy };
    this.#queue = new PriorityQueue(o.queuePolicies);
    const adaptive = o.adaptive;
    this.#pool = new InstancePool(instances, {
      model: o.model, decoupled: o.decoupled, hooks: o.hooks, onFree: this.#pumpSoon, limits: o.limits, clock: o.clock,
      onExecuted: adaptive && ((rows, ms) => adaptive.onExecuted(rows, ms)),
    });
    this.#gate = o.preserveOrdering ? new OrderingGate(toItem) : undefined;
    this.#outlet = this.#gate ?? toItem;
    this.#entries = new QueuedEntries<Entry>({
      model: o.model,
      clock: o.clock,
      unlink: (e) => this.#queue.remove(e),
      onDrop: () => {
        this.#inflight--;
        this.#o.hooks?.onQueueDepth?.(this.#queue.size);
      },
    });
  }

  enqueue(item: WorkItem): void {
    if (item.done) return;
    if (this.#stopped) return item.fail(stoppedError(this.#o.model));
    if (item.signal.aborted) return item.fail(abortReason(item.signal, this.#o.model));
    const level = this.#queue.levelOf(item.priority, this.#o.defaultLevel);
    if (!this.#queue.hasRoom(level)) return item.fail(Errors.queueFull(this.#o.model));
    const e = new Entry(item, level);
    const policy = this.#queue.policy(level);
    const t = queueTimeoutMs(policy, item.request.timeoutUs);
    if (t !== undefined) {
      if (policy.timeout_action === 'DELAY') e.delayAt = item.enqueuedAt + t;
      else e.rejectAt = item.enqueuedAt + t;
    }
    if (item.deadline !== undefined) e.rejectAt = Math.min(e.rejectAt ?? Infinity, item.deadline);
    if (e.rejectAt !== undefined && e.rejectAt <= this.#o.clock.now()) return item.fail(Errors.timeout(this.#o.model));
    this.#inflight++;
    this.#o.adaptive?.onArrival(this.#o.clock.now(), Math.max(1, item.batchSize));
    this.#queue.push(e);
    this.#arm(e);
    this.#entries.watch(e);
    this.#o.hooks?.onQueueDepth?.(this.#queue.size);
    // Soon, not on a timer: requests enqueued in the same tick (a pipeline fan-out, BLS
    // Promise.all) batch together, and a lone request still dispatches before any I/O runs.
    if (!this.#pumpQueued) {
      this.#pumpQueued = true;
      scheduleSoon(this.#pumpNow, this.#o.clock);
    }
  }

  inflightCount(): number {
    return this.#inflight;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clearDelayTimer();
    for (const e of [...this.#queue]) this.#entries.drop(e as Entry, stoppedError(this.#o.model));
    await this.#pool.close();
  }

  #pump(): void {
    this.#pumpQueued = false;
    this.#clearDelayTimer();
    while (this.#pool.freeCount > 0 && this.#queue.size > 0) {
      const now = this.#o.clock.now();
      if (this.#o.adaptive) this.#policy.delayMs = this.#o.adaptive.delayMs(now, this.#queue.size);
      const choice = formBatch(this.#queue as Iterable<Entry>, this.#policy, now);
      if (!choice) break;
      if (choice.until !== undefined) {
        this.#delayTimer = this.#o.clock.setTimer(() => {
          this.#delayTimer = undefined;
          this.#pump();
        }, choice.until - now);
        break;
      }
      this.#dispatch(choice.run as Entry[], this.#pool.firstFree());
    }
  }

  #dispatch(entries: readonly Entry[], index: number): void {
    const batch: BatchRequest[] = [];
    for (const e of entries) {
      this.#entries.leave(e);
      if (e.item.done) {
        this.#inflight--;
        continue;
      }
      const r = new BatchRequest(e.item, e.item.request, this.#outlet, this.#onFinish);
      this.#gate?.admit(r);
      batch.push(r);
    }
    this.#o.hooks?.onQueueDepth?.(this.#queue.size);
    if (batch.length) this.#pool.run(index, batch);
  }

  #arm(e: Entry): void {
    const at = Math.min(e.rejectAt ?? Infinity, e.delayed ? Infinity : (e.delayAt ?? Infinity));
    if (at === Infinity) return;
    this.#entries.arm(e, at, () => this.#expire(e));
  }

  #expire(e: Entry): void {
    e.timer = undefined;
    const now = this.#o.clock.now();
    if (e.rejectAt !== undefined && e.rejectAt <= now) {
      this.#entries.drop(e, Errors.timeout(this.#o.model));
      return;
    }
    if (e.delayAt !== undefined && e.delayAt <= now && !e.delayed) this.#queue.delay(e);
    this.#arm(e);
  }

  #clearDelayTimer(): void {
    if (this.#delayTimer !== undefined) this.#o.clock.clearTimer(this.#delayTimer);
    this.#delayTimer = undefined;
  }
}
