import type { ExecuteTimings } from '../backend/index.js';
import { CancelSource, type BatchTrace, type CancelSignal, type InferenceRequest, type InferenceResponse, type Parameters, type RequestTrace, type ResponseSink } from '../inference/index.js';
import { Errors, toTributaryError } from '../errors.js';
import type { Clock, WorkItem } from '../scheduler/index.js';
import type { Tensor } from '../tensor/index.js';
import { failureReasonOf } from './failure-reason.js';
import type { FailureReason } from './statistics.js';

/** What a work item needs of its model. */
export interface WorkItemOwner {
  readonly name: string;
  readonly version: string;
  readonly clock: Clock;
  /** Backend outputs to a response (config shapes, requested outputs, classification). */
  buildResponse(request: InferenceRequest, outputs: readonly Tensor[], parameters: Parameters | undefined, final: boolean): InferenceResponse;
  /** A cache miss's final response, stored before it is sent; returns the time it took (ns). */
  cacheInsert(key: string, response: InferenceResponse): number;
  /** The request ended: statistics and the end of its trace. */
  record(item: ModelWorkItem, success: boolean, reason: FailureReason | undefined): void;
}

/** Where an ended work item's responses would go: nowhere (none are sent once it ended). */
const ENDED: ResponseSink = { next() {}, error() {}, complete() {} };

/** A validated request as it enters its model's scheduler. */
export interface WorkItemInit {
  request: InferenceRequest;
  /** The validated inputs (reshaped views over the request's). */
  inputs: Tensor[];
  batchSize: number;
  batchKey: string;
  /** Already resolved against the config's default and levels. */
  priority: number;
  deadline: number | undefined;
  /** Clock ms when the request reached the model. */
  enqueuedAt: number;
  trace: RequestTrace | undefined;
}

/**
 * A request inside its model: the scheduler's WorkItem and the backend's BackendRequest. What the
 * scheduler hooks and the statistics read of its life (when it started, its first and final
 * responses, its batch's timings) is read-only from outside; only its own methods move it on.
 */
export class ModelWorkItem implements WorkItem {
  readonly request: InferenceRequest;
  readonly batchSize: number;
  readonly batchKey: string;
  readonly priority: number;
  readonly deadline?: number;
  readonly enqueuedAt: number;
  /** Set only on a traced request. */
  readonly trace?: RequestTrace;
  readonly #model: WorkItemOwner;
  /**
   * Emptied (ENDED) once the request ended: a work item may outlive its request (a batch still
   * referenced), and its consumer's objects must not live on with it (an rxjs Subscriber drops its
   * destination the same way); otherwise they outlast young-generation collections and are promoted.
   */
  #subscriber: ResponseSink;
  readonly #abort = new CancelSource();
  readonly #unlink?: () => void;
  #done = false;
  #startedAt: number | undefined;
  #firstResponseAt: number | undefined;
  #finalAt: number | undefined;
  #finalConsumedMs = 0;
  #timings: ExecuteTimings | undefined;
  #computeEndAt: number | undefined;
  #batchTrace: BatchTrace | undefined;
  #cacheKey: string | undefined;
  #cacheNs = 0;
  #batchEnded = false;
  /** A success finished before its batch ended: recorded at batchEnded, once timings are known. */
  #recordAtBatchEnd = false;

  constructor(model: WorkItemOwner, subscriber: ResponseSink, init: WorkItemInit) {
    this.#model = model;
    this.#subscriber = subscriber;
    // One copy of the request: validated inputs (reshaped views) and this item's own signal.
    this.request = { ...init.request, inputs: init.inputs, signal: this.#abort };
    const trace = init.trace;
    if (trace) {
      // Steps and BLS children find their parent here.
      this.request.trace = this.trace = trace;
      trace.stamp('QUEUE_START', model.clock.now());
      if (trace.tensors) for (const t of init.inputs) trace.tensor('TENSOR_QUEUE_INPUT', t);
    }
    this.batchSize = init.batchSize;
    this.batchKey = init.batchKey;
    this.priority = init.priority;
    if (init.deadline !== undefined) this.deadline = init.deadline;
    this.enqueuedAt = init.enqueuedAt;
    const outer = init.request.signal;
    if (outer) {
      const onAbort = () => this.cancel();
      outer.addEventListener('abort', onAbort, { once: true });
      this.#unlink = () => outer.removeEventListener('abort', onAbort);
    }
  }

  get done(): boolean {
    return this.#done;
  }

  get signal(): CancelSignal {
    return this.#abort;
  }

  /** When its batch started executing (clock ms). */
  get startedAt(): number | undefined {
    return this.#startedAt;
  }

  /** When its first response (or, without one before it, its final response) was handed over. */
  get firstResponseAt(): number | undefined {
    return this.#firstResponseAt;
  }

  /** When the final response was handed to its consumer (clock ms). */
  get finalAt(): number | undefined {
    return this.#finalAt;
  }

  /** How long the consumer of the final response then ran (clock ms). */
  get finalConsumedMs(): number {
    return this.#finalConsumedMs;
  }

  /** Its batch's compute timings, once the batch ended. */
  get timings(): ExecuteTimings | undefined {
    return this.#timings;
  }

  /** When its batch ended (traced requests only). */
  get computeEndAt(): number | undefined {
    return this.#computeEndAt;
  }

  /** On a batch's first item: the batch's trace when a request in it is traced. */
  get batchTrace(): BatchTrace | undefined {
    return this.#batchTrace;
  }

  /** A cache miss's key: its final response is stored under it. */
  get cacheKey(): string | undefined {
    return this.#cacheKey;
  }

  /** A cache miss's key, lookup and insertion time so far (ns). */
  get cacheNs(): number {
    return this.#cacheNs;
  }

  /** Missed the response cache: the final response is stored under `key`; the miss took `ns` so far. */
  missedCache(key: string, ns: number): void {
    this.#cacheKey = key;
    this.#cacheNs = ns;
  }

  /** Its batch starts executing; the first item of a traced batch carries the batch's trace. */
  started(now: number, batchTrace?: BatchTrace): void {
    this.#startedAt = now;
    if (batchTrace) this.#batchTrace = batchTrace;
  }

  batchEnded(t: ExecuteTimings | undefined): void {
    if (t) this.#timings = t;
    if (this.trace) this.#computeEndAt = this.#model.clock.now();
    this.#batchEnded = true;
    if (this.#recordAtBatchEnd) {
      this.#recordAtBatchEnd = false;
      this.#model.record(this, true, undefined);
    }
  }

  send(response: { outputs: Tensor[]; parameters?: Parameters } | null, final: boolean): void {
    if (this.#done) return;
    if (!final && this.#firstResponseAt === undefined) this.#firstResponseAt = this.#model.clock.now();
    if (response) {
      let resp: InferenceResponse;
      try {
        resp = this.#model.buildResponse(this.request, response.outputs, response.parameters, final);
      } catch (e) {
        this.fail(e);
        return;
      }
      if (final && this.#cacheKey !== undefined) this.#cacheNs += this.#model.cacheInsert(this.#cacheKey, resp);
      if (this.trace?.tensors) for (const t of resp.outputs) this.trace.tensor('TENSOR_BACKEND_OUTPUT', t);
      if (final) this.#handOver();
      this.#subscriber.next(resp);
    } else if (final) {
      this.#handOver();
      // An empty final response marks the end of a decoupled stream.
      this.#subscriber.next({ model: this.#model.name, version: this.#model.version, outputs: [], final: true, ...(this.request.id === undefined ? {} : { id: this.request.id }) });
    }
    if (final) {
      this.#finish(true, undefined);
      const sink = this.#subscriber;
      this.#subscriber = ENDED;
      sink.complete();
      this.#finalConsumedMs = this.#model.clock.now() - this.#finalAt!;
    }
  }

  /** The final response goes to its consumer now: compute ends here for a backend that times nothing. */
  #handOver(): void {
    this.#finalAt = this.#model.clock.now();
    this.#firstResponseAt ??= this.#finalAt;
  }

  fail(error: unknown): void {
    if (this.#done) return;
    const err = toTributaryError(error);
    this.#finish(false, failureReasonOf(err));
    const sink = this.#subscriber;
    this.#subscriber = ENDED;
    sink.error(err);
  }

  /** Unsubscribe or outer abort: leave the queue / stop running, counted as CANCELED. */
  cancel(): void {
    if (this.#done) return;
    this.#finish(false, 'CANCELED');
    const err = Errors.cancelled(this.#model.name);
    this.#abort.abort(err);
    const sink = this.#subscriber;
    this.#subscriber = ENDED;
    // Unsubscribing (or a sink's stop) cancels: an rxjs Subscriber ignores this error then, and a
    // stopped sink's owner has stopped listening.
    sink.error(err);
  }

  #finish(success: boolean, reason: FailureReason | undefined): void {
    this.#done = true;
    this.#unlink?.();
    if (success && this.#startedAt !== undefined && !this.#batchEnded) this.#recordAtBatchEnd = true;
    else this.#model.record(this, success, reason);
  }
}
