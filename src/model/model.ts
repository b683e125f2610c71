import { Observable } from 'rxjs';
import type { BackendInstance, BackendModel } from '../backend/index.js';
import { checkCallCycle, type InferenceRequest, type InferenceResponse, type Parameters, type ResponseSink, type StopRequest } from '../inference/index.js';
import { isEnsemble, isExperiment, type ModelConfig, type ModelInput } from '../config/index.js';
import { Errors, toTributaryError } from '../errors.js';
import type { Clock, Scheduler, SchedulerHooks } from '../scheduler/index.js';
import type { Tensor } from '../tensor/index.js';
import type { ResponseCache } from '../cache/index.js';
import { classify } from './classification.js';
import { outputShaper, type OutputShaper } from './output-shaper.js';
import { ModelCache } from './model-cache.js';
import type { FailureReason, ModelStatistics, RequestRecord } from './statistics.js';
import { StatsCollector } from './stats-collector.js';
import { endTrace } from './end-trace.js';
import { openBatchTrace } from './batch-trace.js';
import { wallTimings } from './wall-timings.js';
import { validateRequest, validateRequestedOutputs } from './validate-request.js';
import { ModelWorkItem, type WorkItemOwner } from './model-work-item.js';
import { failureReasonOf } from './failure-reason.js';

export interface ModelOptions {
  config: ModelConfig;
  version: string;
  /** Builds the scheduler once the model can give it hooks into its statistics. */
  createScheduler: (hooks: SchedulerHooks) => Scheduler;
  instances?: readonly BackendInstance[];
  backendModel?: BackendModel;
  /** Labels per output name (from label_filename), for the classification extension. */
  labels?: ReadonlyMap<string, readonly string[]>;
  clock: Clock;
  stats: StatsCollector;
  /** Extra statistics a scheduler keeps (pipeline steps, sequences). */
  extraStats?: () => Partial<ModelStatistics>;
  /** The server's response cache; used when the config has `response_cache { enable: true }`. */
  cache?: ResponseCache;
}

/**
 * A loaded model version: config + scheduler + backend instances. A pipeline is just a model
 * whose scheduler runs the plan. Every request is validated here, once, then queued.
 */
export class Model implements WorkItemOwner {
  readonly name: string;
  readonly version: string;
  readonly config: ModelConfig;
  readonly decoupled: boolean;
  readonly #scheduler: Scheduler;
  readonly #instances: readonly BackendInstance[];
  readonly #backendModel?: BackendModel;
  readonly #inputs: ReadonlyMap<string, ModelInput>;
  readonly #outputs: ReadonlySet<string>;
  readonly #labels: ReadonlyMap<string, readonly string[]>;
  readonly #shapeOutput: OutputShaper | undefined;
  readonly #clock: Clock;
  readonly #stats: StatsCollector;
  readonly #extraStats?: () => Partial<ModelStatistics>;
  readonly #defaultPriority: number;
  readonly #priorityLevels: number;
  readonly #timeoutIsDeadline: boolean;
  readonly #cache?: ModelCache;
  /** An experiment relays its variant's responses, already shaped and classified by the variant. */
  readonly #relay: boolean;

  constructor(o: ModelOptions) {
    this.config = o.config;
    this.name = o.config.name;
    this.version = o.version;
    this.decoupled = o.config.model_transaction_policy.decoupled;
    this.#instances = o.instances ?? [];
    if (o.backendModel) this.#backendModel = o.backendModel;
    this.#inputs = new Map(o.config.input.map((i) => [i.name, i]));
    this.#outputs = new Set(o.config.output.map((x) => x.name));
    this.#labels = o.labels ?? new Map();
    this.#shapeOutput = outputShaper(o.config);
    this.#clock = o.clock;
    this.#stats = o.stats;
    if (o.extraStats) this.#extraStats = o.extraStats;
    // Only a model that answers once per request can be answered from the cache (validate-config refuses the rest).
    if (o.cache && o.config.response_cache?.enable && !this.decoupled) this.#cache = new ModelCache(o.cache, this.name, this.version, o.clock, o.stats);
    const db = o.config.dynamic_batching;
    this.#relay = isExperiment(o.config);
    // An experiment hands `timeout` on to its variant, whose own queue policy applies it.
    this.#timeoutIsDeadline = !db && !o.config.sequence_batching && !this.#relay;
    this.#priorityLevels = db?.priority_levels ?? 0;
    this.#defaultPriority = db?.default_priority_level || (this.#priorityLevels > 0 ? this.#priorityLevels : 0);
    // A pipeline's run is no batch execution; its steps' batches are traced in the steps.
    const tracesBatches = o.config.max_batch_size > 0 && !isEnsemble(o.config) && !this.#relay;
    const hooks: SchedulerHooks = {
      onBatchStart: (items) => {
        const now = this.#clock.now();
        const batchTrace = tracesBatches ? openBatchTrace(items, this.name, this.version, now) : undefined;
        (items[0] as ModelWorkItem).started(now, batchTrace);
        for (let k = 1; k < items.length; k++) (items[k] as ModelWorkItem).started(now);
      },
      onBatchEnd: (items, reported) => {
        let rows = 0;
        for (const it of items) rows += it.batchSize;
        // A backend that times nothing itself (identity, a pipeline) is timed from the batch's
        // start to its last final response.
        const timings = reported ?? wallTimings(items as readonly ModelWorkItem[], this.#clock.now());
        this.#stats.execution(rows, timings);
        for (const it of items) (it as ModelWorkItem).batchEnded(timings);
        (items[0] as ModelWorkItem).batchTrace?.end(this.#clock.now());
      },
      onQueueDepth: (d) => this.#stats.pending(d),
    };
    this.#scheduler = o.createScheduler(hooks);
  }

  /** One response (or many, for a decoupled model); unsubscribing cancels. */
  infer(request: InferenceRequest): Observable<InferenceResponse> {
    return new Observable<InferenceResponse>((subscriber) => this.start(request, subscriber));
  }

  /**
   * Validate `request` and queue it; its responses go to `sink`, a refusal at once. Returns how to
   * stop it (undefined when it was refused). `infer` is this behind an Observable.
   */
  start(request: InferenceRequest, sink: ResponseSink): StopRequest | undefined {
    const start = this.#clock.now();
    let item: ModelWorkItem;
    const trace = request.trace?.open(this.name, this.version, request.id);
    trace?.stamp('REQUEST_START', start);
    try {
      if (request.signal?.aborted) throw Errors.cancelled(this.name);
      checkCallCycle(request, this.name);
      const v = validateRequest(this.config, this.#inputs, request);
      validateRequestedOutputs(this.config, this.#outputs, request);
      let deadline = request.deadline;
      // A dynamic or sequence batcher applies `timeout` through its queue policy
      // (allow_timeout_override, DELAY); elsewhere (default scheduler, pipelines) the timeout
      // becomes the request's deadline, carried to every step and child.
      if (this.#timeoutIsDeadline && request.timeoutUs !== undefined && request.timeoutUs > 0) {
        const d = start + request.timeoutUs / 1000;
        deadline = deadline === undefined ? d : Math.min(deadline, d);
      }
      let priority = request.priority ?? 0;
      if (priority <= 0 || (this.#priorityLevels > 0 && priority > this.#priorityLevels)) priority = this.#defaultPriority;
      const init = { request, inputs: v.inputs, batchSize: v.batchSize, batchKey: v.batchKey, priority, deadline, enqueuedAt: start, trace };
      if (this.#cache) return this.#cache.serve(sink, request, v.inputs, v.batchSize, start, trace, () => new ModelWorkItem(this, sink, init), (it) => this.#scheduler.enqueue(it));
      item = new ModelWorkItem(this, sink, init);
    } catch (e) {
      const err = toTributaryError(e);
      this.#stats.failure(failureReasonOf(err), (this.#clock.now() - start) * 1e6, 1);
      if (trace) endTrace(trace, undefined, undefined, undefined, this.#clock.now());
      sink.error(err);
      return undefined;
    }
    this.#scheduler.enqueue(item);
    return () => item.cancel();
  }

  /** @internal a miss's final response goes into the cache before it is sent; returns the time it took (ns). */
  cacheInsert(key: string, response: InferenceResponse): number {
    return this.#cache ? this.#cache.insert(key, response) : 0;
  }

  /** Labels per output name, for the classification extension (a pipeline inherits its steps'). */
  get labels(): ReadonlyMap<string, readonly string[]> {
    return this.#labels;
  }

  statistics(): ModelStatistics {
    const base = this.#stats.snapshot();
    return this.#extraStats ? { ...base, ...this.#extraStats() } : base;
  }

  inflightCount(): number {
    return this.#scheduler.inflightCount();
  }

  /**
   * The backend's own say in readiness (a script's isReady()), for the model ready endpoint:
   * synchronous true when the backend has none, so only models that ask pay for asking.
   */
  ready(): boolean | Promise<boolean> {
    return this.#backendModel?.isReady?.() ?? true;
  }

  /** Stop the scheduler (queued requests fail UNAVAILABLE), then finalize the instances. */
  async unload(): Promise<void> {
    await this.#scheduler.stop();
    await Promise.allSettled(this.#instances.map((i) => i.finalize()));
    await this.#backendModel?.finalize?.();
  }

  /** Turn backend outputs into a response: config shapes, requested outputs only, classification applied. */
  buildResponse(request: InferenceRequest, backendOutputs: readonly Tensor[], parameters: Parameters | undefined, final: boolean): InferenceResponse {
    const outputs = this.#shapeOutput && !this.#relay ? backendOutputs.map(this.#shapeOutput) : backendOutputs;
    let out: Tensor[] = outputs as Tensor[];
    if (request.outputs && !this.#relay) {
      out = [];
      for (const ro of request.outputs) {
        const t = outputs.find((o) => o.name === ro.name);
        if (!t) continue;
        const k = ro.parameters?.classification;
        out.push(k !== undefined ? classify(t, Number(k), this.config.max_batch_size > 0, this.#labels.get(t.name)) : t);
      }
    }
    const resp: InferenceResponse = { model: this.name, version: this.version, outputs: out, final };
    if (request.id !== undefined) resp.id = request.id;
    if (parameters && Object.keys(parameters).length) resp.parameters = parameters;
    return resp;
  }

  /** @internal called by work items */
  record(item: ModelWorkItem, success: boolean, reason: FailureReason | undefined): void {
    const end = this.#clock.now();
    const t = item.timings;
    if (success) {
      const rec: Omit<RequestRecord, 'model' | 'version'> = {
        success, batchSize: item.batchSize,
        requestNs: (end - item.enqueuedAt) * 1e6,
        queueNs: ((item.startedAt ?? end) - item.enqueuedAt) * 1e6,
        computeInputNs: t?.computeInputNs ?? 0, computeInferNs: t?.computeInferNs ?? 0, computeOutputNs: t?.computeOutputNs ?? 0,
      };
      if (item.firstResponseAt !== undefined) rec.firstResponseNs = (item.firstResponseAt - item.enqueuedAt) * 1e6;
      if (item.cacheKey !== undefined) rec.cache = { hit: false, ns: item.cacheNs };
      this.#stats.request(rec);
    } else {
      this.#stats.failure(reason ?? 'OTHER', (end - item.enqueuedAt) * 1e6, item.batchSize);
    }
    if (item.trace) endTrace(item.trace, item.startedAt, item.computeEndAt, item.timings, end);
  }

  get clock(): Clock {
    return this.#clock;
  }
}
