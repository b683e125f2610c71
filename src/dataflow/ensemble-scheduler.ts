/**
 * The scheduler of a pipeline model: each enqueued request runs the plan (run-plan.ts). With
 * `max_inflight_requests` the whole pipeline holds at most that many requests in flight; the
 * rest wait here as the compact incoming request, before any step has made larger tensors
 * (https://github.com/triton-inference-server/server/issues/8597).
 */
import { releaseExclusive } from '../tensor/index.js';
import type { Subscription } from 'rxjs';
import type { ModelHost } from '../backend/index.js';
import { Errors } from '../errors.js';
import { callChainOf } from '../inference/index.js';
import type { StatDuration } from '../scheduler/index.js';
import type { PipelinePlan } from '../pipeline/index.js';
import { QueuedEntries, QueuedEntry, abortReason, stoppedError, systemClock, type Clock, type Scheduler, type SchedulerHooks, type WorkItem } from '../scheduler/index.js';
import type { Tensor } from '../tensor/index.js';
import { runPlan } from './run-plan.js';
import { StepStats, type BranchStat, type StepStat } from './step-stats.js';

interface EnsembleSchedulerOptions {
  host: ModelHost;
  pipeline: string;
  clock?: Clock;
  /** Requests of the whole pipeline in flight at once; 0 or undefined = the plan's, else unbounded. */
  maxInflight?: number;
  /** The model's statistics hooks: a request "starts" when it leaves the in-flight queue. */
  hooks?: SchedulerHooks;
  /** The pipeline batches (max_batch_size > 0): a `return` literal gets the request's batch dim. */
  batching?: boolean;
}

interface EnsembleScheduler extends Scheduler {
  stepStats(): StepStat[];
  branchStats(): BranchStat[];
  wallStats(): StatDuration;
}

export function createEnsembleScheduler(plan: PipelinePlan, options: EnsembleSchedulerOptions): EnsembleScheduler {
  const { host, pipeline, hooks } = options;
  const clock = options.clock ?? systemClock;
  const bound = options.maxInflight || plan.maxInflightRequests;
  const limit = bound > 0 ? bound : Infinity;
  const stats = new StepStats(plan);
  const batching = options.batching === true;
  /** Requests held back by max_inflight_requests, in priority order (FIFO within a level). */
  const queue: QueuedEntry[] = [];
  const running = new Set<WorkItem>();
  let stopped = false;
  let idle: (() => void) | undefined;

  const depth = () => hooks?.onQueueDepth?.(queue.length);
  const entries = new QueuedEntries<QueuedEntry>({
    model: pipeline,
    clock,
    unlink: (e) => {
      const i = queue.indexOf(e);
      if (i < 0) return false;
      queue.splice(i, 1);
      return true;
    },
    onDrop: depth,
    afterDrop: drain,
  });

  function drain(): void {
    while (!stopped && queue.length > 0 && running.size < limit) {
      const e = queue[0]!;
      entries.leave(e);
      depth();
      if (!e.item.done && !e.item.signal.aborted) start(e.item);
    }
    if (running.size === 0 && queue.length === 0) idle?.();
  }

  function start(item: WorkItem): void {
    running.add(item);
    hooks?.onBatchStart?.([item], 0);
    const t0 = clock.now();
    let held: Tensor[] | undefined;
    let ended = false;
    let sub: Subscription | undefined;
    const finish = (success: boolean) => {
      ended = true;
      item.signal.removeEventListener('abort', onAbort);
      running.delete(item);
      if (success) stats.wall((clock.now() - t0) * 1e6);
      hooks?.onBatchEnd?.([item], undefined, 0);
    };
    const onAbort = () => {
      if (ended) return;
      finish(false);
      sub?.unsubscribe();
      // The pipeline is the backend here: a cancelled run still owes its item a final answer.
      item.fail(abortReason(item.signal, pipeline));
      drain();
    };
    item.signal.addEventListener('abort', onAbort, { once: true });
    const ctx = {
      host, pipeline, request: item.request, clock, stats, priority: item.priority, batching,
      // A run holds one of `limit` slots while its steps wait: a step that calls back into this
      // pipeline (through a script) with every slot held would wait forever (checkCallCycle).
      chain: [...callChainOf(item.request), { model: pipeline, slots: limit, bound: 'max_inflight_requests' }],
      ...(item.deadline === undefined ? {} : { deadline: item.deadline }),
    };
    // A synchronous run may end inside subscribe(), before `sub` is assigned; `ended` covers that.
    sub = runPlan(plan, ctx).subscribe({
      next: (outputs) => {
        if (plan.decoupled) item.send({ outputs }, false);
        else held = outputs;
      },
      error: (e: unknown) => {
        finish(false);
        item.fail(e);
        drain();
      },
      complete: () => {
        finish(true);
        if (plan.decoupled) item.send(null, true);
        else item.send({ outputs: held ?? [] }, true);
        drain();
      },
    });
  }

  return {
    enqueue(item: WorkItem): void {
      if (item.done) return;
      // A pipeline may feed one tensor to several steps: none of its inputs may be moved away.
      for (const t of item.request.inputs) if (ArrayBuffer.isView(t.data)) releaseExclusive(t.data.buffer);
      if (stopped) return item.fail(stoppedError(pipeline));
      if (item.signal.aborted) return item.fail(abortReason(item.signal, pipeline));
      if (item.deadline !== undefined && item.deadline <= clock.now()) return item.fail(Errors.timeout(pipeline));
      if (running.size < limit) return start(item);
      // Higher priority (1 = highest, 0 = default, last) first; FIFO within a level.
      const rank = (w: WorkItem) => (w.priority > 0 ? w.priority : Number.MAX_SAFE_INTEGER);
      let at = queue.length;
      while (at > 0 && rank(queue[at - 1]!.item) > rank(item)) at--;
      const e = new QueuedEntry(item);
      queue.splice(at, 0, e);
      depth();
      entries.watch(e);
      if (item.deadline !== undefined) entries.arm(e, item.deadline, () => entries.drop(e, Errors.timeout(pipeline)));
    },
    inflightCount: () => running.size + queue.length,
    stop(): Promise<void> {
      stopped = true;
      for (const e of [...queue]) entries.drop(e, stoppedError(pipeline));
      if (running.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        idle = resolve;
      });
    },
    stepStats: () => stats.steps(),
    branchStats: () => stats.branches(),
    wallStats: () => stats.wallTime(),
  };
}
