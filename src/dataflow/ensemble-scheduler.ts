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
import type { StatDuration } from '../scheduler/index.js';
import type { PipelinePlan } from '../pipeline/index.js';
import { systemClock, type Clock, type Scheduler, type SchedulerHooks, type WorkItem } from '../scheduler/index.js';
import type { Tensor } from '../tensor/index.js';
import { runPlan } from './run-plan.js';
import { StepStats, type StepStat } from './step-stats.js';

export interface EnsembleSchedulerOptions {
  host: ModelHost;
  pipeline: string;
  version: string;
  clock?: Clock;
  /** Requests of the whole pipeline in flight at once; 0 or undefined = the plan's, else unbounded. */
  maxInflight?: number;
  /** The model's statistics hooks: a request "starts" when it leaves the in-flight queue. */
  hooks?: SchedulerHooks;
}

export interface EnsembleScheduler extends Scheduler {
  stepStats(): StepStat[];
  wallStats(): StatDuration;
}

export function createEnsembleScheduler(plan: PipelinePlan, options: EnsembleSchedulerOptions): EnsembleScheduler {
  const { host, pipeline, hooks } = options;
  const clock = options.clock ?? systemClock;
  const bound = options.maxInflight || plan.maxInflightRequests;
  const limit = bound > 0 ? bound : Infinity;
  const stats = new StepStats(plan);
  const queue: WorkItem[] = [];
  const running = new Set<WorkItem>();
  let stopped = false;
  let idle: (() => void) | undefined;

  const depth = () => hooks?.onQueueDepth?.(queue.length);

  function drain(): void {
    while (queue.length > 0 && running.size < limit) {
      const item = queue.shift()!;
      depth();
      if (!item.done && !item.signal.aborted) start(item);
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
      drain();
    };
    item.signal.addEventListener('abort', onAbort, { once: true });
    const ctx = {
      host, pipeline, request: item.request, clock, stats, priority: item.priority,
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

  function remove(item: WorkItem): void {
    const i = queue.indexOf(item);
    if (i >= 0) {
      queue.splice(i, 1);
      depth();
      if (!item.done) item.fail(Errors.cancelled(pipeline));
      drain();
    }
  }

  return {
    enqueue(item: WorkItem): void {
      if (item.done) return;
      // A pipeline may feed one tensor to several steps: none of its inputs may be moved away.
      for (const t of item.request.inputs) if (ArrayBuffer.isView(t.data)) releaseExclusive(t.data.buffer);
      if (stopped) return item.fail(Errors.modelNotReady(pipeline, 'UNLOADING'));
      if (item.signal.aborted) return item.fail(Errors.cancelled(pipeline));
      if (running.size < limit) return start(item);
      // Higher priority (1 = highest, 0 = default, last) first; FIFO within a level.
      const rank = (w: WorkItem) => (w.priority > 0 ? w.priority : Number.MAX_SAFE_INTEGER);
      let at = queue.length;
      while (at > 0 && rank(queue[at - 1]) > rank(item)) at--;
      queue.splice(at, 0, item);
      depth();
      item.signal.addEventListener('abort', () => remove(item), { once: true });
    },
    inflightCount: () => running.size + queue.length,
    stop(): Promise<void> {
      stopped = true;
      for (const item of queue.splice(0)) item.fail(Errors.modelNotReady(pipeline, 'UNLOADING'));
      depth();
      if (running.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        idle = resolve;
      });
    },
    stepStats: () => stats.steps(),
    wallStats: () => stats.wallTime(),
  };
}
