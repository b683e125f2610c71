import type { BackendRequest, ExecuteTimings } from '../backend/index.js';
import type { RequestTrace } from '../inference/index.js';

/**
 * A request waiting in (or running from) a scheduler. The model creates it; the scheduler queues
 * it, hands it to a backend instance inside a batch, and reports timings through the hooks.
 */
export interface WorkItem extends BackendRequest {
  /** Priority level, 1 = highest; already resolved against the config default. */
  readonly priority: number;
  /** Absolute deadline on the scheduler clock (ms), if any. */
  readonly deadline?: number;
  /** Clock time when enqueued (ms). */
  readonly enqueuedAt: number;
  /** True once the request has completed (responded, failed or cancelled). */
  readonly done: boolean;
  /** Shape signature: requests batch together only when signatures are equal (inputs minus batch dim). */
  readonly batchKey: string;
  /** The request's trace in this model, when it is traced (an experiment notes its variant there). */
  readonly trace?: RequestTrace | undefined;
}

/** Reports from a scheduler to its model's statistics. */
export interface SchedulerHooks {
  /** Items leave the queue to execute as one batch on `instance`. */
  onBatchStart?(items: readonly WorkItem[], instance: number): void;
  /** A batch finished executing. */
  onBatchEnd?(items: readonly WorkItem[], timings: ExecuteTimings | undefined, instance: number): void;
  /** Queue depth changed (for nv_inference_pending_request_count). */
  onQueueDepth?(depth: number): void;
}

/**
 * Triton's scheduler contract: enqueue, in-flight count, stop. Rejections (queue full, timeout,
 * cancel) are reported by failing the item with the catalog error; enqueue never throws for them.
 */
export interface Scheduler {
  enqueue(item: WorkItem): void;
  /** Requests queued or executing. */
  inflightCount(): number;
  /** Stop taking work; resolves when executing batches finish. Queued items fail UNAVAILABLE. */
  stop(): Promise<void>;
  /** Sequence batchers only: counts for the model's `sequence_stats`. */
  sequenceStats?(): SequenceStats;
}

/** Sequence counts since load (statistics `sequence_stats`). */
export interface SequenceStats {
  /** Sequences holding a slot or waiting in the backlog now. */
  active: number;
  /** Requests that carried the START flag and were accepted. */
  started: number;
  /** END requests that completed. */
  ended: number;
  /** Sequences released because they stayed idle past max_sequence_idle_microseconds. */
  released_idle: number;
}

/** A count and a total duration in nanoseconds (the statistics extension's pair). */
export interface StatDuration { count: number; ns: number }
