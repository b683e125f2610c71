import type { BackendInstance, ExecuteTimings } from '../backend/index.js';
import { Errors, TributaryError } from '../errors.js';
import type { BatchRequest } from './batch-request.js';
import type { Clock } from './clock.js';
import type { LimitedInstance } from './rate-limiter.js';
import type { SchedulerHooks, WorkItem } from './scheduler.js';

export interface InstancePoolOptions {
  readonly model: string;
  readonly decoupled: boolean;
  readonly hooks: SchedulerHooks | undefined;
  /** Called (synchronously) whenever an instance becomes free. */
  readonly onFree: () => void;
  /** Each instance's place in the server's rate limiter (--rate-limit=execution_count), by index. */
  readonly limits?: readonly LimitedInstance[] | undefined;
  /** Told each execution's rows and duration (ms on `clock`), for the adaptive batching delay. */
  readonly onExecuted?: ((rows: number, ms: number) => void) | undefined;
  readonly clock?: Clock | undefined;
}

/**
 * Backend instances and which of them are free. Runs one batch per instance at a time and turns
 * every way a batch can end (resolve, reject, synchronous throw, requests left unanswered) into
 * finished requests and a free instance.
 */
export class InstancePool {
  readonly #instances: readonly BackendInstance[];
  readonly #busy: boolean[];
  /** Batches started and not yet ended (#end), and who waits for none (close; every caller). */
  #running = 0;
  #onIdle: (() => void)[] = [];
  readonly #o: InstancePoolOptions;
  #freeCount: number;

  constructor(instances: readonly BackendInstance[], o: InstancePoolOptions) {
    if (instances.length === 0) throw Errors.schedulerNoInstances(o.model);
    this.#instances = instances;
    this.#busy = instances.map(() => false);
    this.#freeCount = instances.length;
    this.#o = o;
  }

  get freeCount(): number {
    return this.#freeCount;
  }

  isFree(index: number): boolean {
    return !this.#busy[index];
  }

  /** The lowest free instance index, or -1. */
  firstFree(): number {
    if (this.#freeCount === 0) return -1;
    return this.#busy.indexOf(false);
  }

  /**
   * Execute `batch` on free instance `index`. The instance is taken at once; with a rate limiter
   * the batch starts when its resources are granted, so the wait counts as queue time (Triton's).
   */
  run(index: number, batch: readonly BatchRequest[]): void {
    if (this.#busy[index]) throw Errors.instanceBusy(this.#o.model, index);
    this.#busy[index] = true;
    this.#freeCount--;
    const slot = this.#o.limits?.[index];
    this.#running++;
    // Every way a batch ends passes #end, which counts it out: no promise kept per batch.
    if (slot) slot.acquire(() => this.#execute(index, batch));
    else this.#execute(index, batch);
  }

  /** Resolves when every executing batch has ended; then leaves the rate limiter. */
  async close(): Promise<void> {
    while (this.#running > 0) await new Promise<void>((resolve) => { this.#onIdle.push(resolve); });
    const limits = this.#o.limits;
    if (limits?.length) limits[0]!.limiter.unregister(limits);
  }

  #execute(index: number, batch: readonly BatchRequest[]): void {
    const items: WorkItem[] = batch.map((b) => b.item);
    this.#o.hooks?.onBatchStart?.(items, index);
    const started = this.#o.onExecuted ? this.#o.clock!.now() : 0;
    let result: Promise<ExecuteTimings | void> | ExecuteTimings | void;
    try {
      result = this.#instances[index]!.execute(batch);
    } catch (e) {
      this.#end(index, batch, items, undefined, e, started);
      return;
    }
    // A batch answered by the time execute() returned ends now (BackendInstance.execute).
    if (!isPromise(result)) {
      this.#end(index, batch, items, result ?? undefined, undefined, started);
      return;
    }
    result.then(
      (t) => this.#end(index, batch, items, t ?? undefined, undefined, started),
      (e: unknown) => this.#end(index, batch, items, undefined, e, started),
    );
  }

  #end(index: number, batch: readonly BatchRequest[], items: readonly WorkItem[], timings: ExecuteTimings | undefined, error: unknown, started: number): void {
    try {
      if (this.#o.onExecuted) {
        let rows = 0;
        for (const it of items) rows += Math.max(1, it.batchSize);
        this.#o.onExecuted(rows, this.#o.clock!.now() - started);
      }
      this.#o.hooks?.onBatchEnd?.(items, timings, index);
      if (error !== undefined) {
        const err = error instanceof TributaryError ? error : Errors.backendFailed(this.#o.model, `instance ${index}: ${error instanceof Error ? error.message : String(error)}`);
        for (const b of batch) b.fail(err);
      } else if (!this.#o.decoupled) {
        // A non-decoupled instance must answer before its execute() resolves (backend contract).
        for (const b of batch) {
          if (!b.finished) b.fail(Errors.backendFailed(this.#o.model, `instance ${index} finished a batch without responding to request${b.request.id ? ` '${b.request.id}'` : ''}`));
        }
      }
      this.#busy[index] = false;
      this.#freeCount++;
      this.#o.onFree();
      // After onFree: the pump it schedules re-stages this instance before the limiter picks the
      // next one (Triton re-stages a released instance whose model has work before allocating).
      this.#o.limits?.[index]?.release();
    } finally {
      // Counted out even if a hook threw, so close() cannot wait for a batch that ended.
      if (--this.#running === 0 && this.#onIdle.length > 0) {
        const waiting = this.#onIdle;
        this.#onIdle = [];
        for (const idle of waiting) idle();
      }
    }
  }
}

function isPromise<T>(v: Promise<T> | T): v is Promise<T> {
  return typeof (v as { then?: unknown } | undefined)?.then === 'function';
}
