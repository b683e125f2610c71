import type { ExecuteTimings } from '../backend/index.js';
import {
  emptyDuration, emptyInferStatistics, type FailureReason, type InferBatchStatistics, type InferStatistics,
  type ModelListener, type ModelStatistics, type RequestRecord,
} from './statistics.js';

/**
 * Accumulates the statistics extension's figures for one model version and forwards each record
 * to the listeners (metrics). Durations arrive in nanoseconds.
 */
export class StatsCollector {
  readonly #name: string;
  readonly #version: string;
  readonly #listeners: () => Iterable<ModelListener>;
  readonly #infer: InferStatistics = emptyInferStatistics();
  readonly #batches = new Map<number, InferBatchStatistics>();
  #inferenceCount = 0;
  #executionCount = 0;
  #lastInference = 0;

  constructor(name: string, version: string, listeners: () => Iterable<ModelListener>) {
    this.#name = name;
    this.#version = version;
    this.#listeners = listeners;
  }

  /** `r` is the caller's fresh record: it is completed in place (model, version) and handed on. */
  request(r: Omit<RequestRecord, 'model' | 'version'>): void {
    const rec = r as RequestRecord;
    rec.model = this.#name;
    rec.version = this.#version;
    const s = this.#infer;
    this.#lastInference = Date.now();
    if (rec.cache?.hit) {
      // Triton's UpdateSuccessCacheHit: a success with its queue time, no compute and no inference count.
      add(s.success, rec.requestNs);
      add(s.queue, rec.queueNs);
      add(s.cache_hit, rec.cache.ns);
    } else if (rec.success) {
      if (rec.cache) add(s.cache_miss, rec.cache.ns);
      add(s.success, rec.requestNs);
      add(s.queue, rec.queueNs);
      add(s.compute_input, rec.computeInputNs);
      add(s.compute_infer, rec.computeInferNs);
      add(s.compute_output, rec.computeOutputNs);
      this.#inferenceCount += rec.batchSize;
    } else {
      add(s.fail, rec.requestNs);
    }
    for (const l of this.#listeners()) l.onRequest?.(rec);
  }

  failure(reason: FailureReason, requestNs: number, batchSize: number): void {
    this.request({ success: false, reason, batchSize, requestNs, queueNs: 0, computeInputNs: 0, computeInferNs: 0, computeOutputNs: 0 });
  }

  execution(batchSize: number, t: ExecuteTimings | undefined): void {
    this.#executionCount++;
    let b = this.#batches.get(batchSize);
    if (!b) {
      b = { batch_size: batchSize, compute_input: emptyDuration(), compute_infer: emptyDuration(), compute_output: emptyDuration() };
      this.#batches.set(batchSize, b);
    }
    // Every execution counts in its batch size's entry, as Triton's UpdateInferBatchStats does.
    add(b.compute_input, t?.computeInputNs ?? 0);
    add(b.compute_infer, t?.computeInferNs ?? 0);
    add(b.compute_output, t?.computeOutputNs ?? 0);
    for (const l of this.#listeners()) l.onExecution?.({ model: this.#name, version: this.#version, batchSize });
  }

  pending(depth: number): void {
    for (const l of this.#listeners()) l.onPending?.(this.#name, this.#version, depth);
  }

  snapshot(): ModelStatistics {
    return {
      name: this.#name,
      version: this.#version,
      last_inference: this.#lastInference,
      inference_count: this.#inferenceCount,
      execution_count: this.#executionCount,
      inference_stats: structuredClone(this.#infer),
      response_stats: {},
      batch_stats: [...this.#batches.values()].sort((a, b) => a.batch_size - b.batch_size).map((b) => structuredClone(b)),
      memory_usage: [],
    };
  }
}

function add(d: { count: number; ns: number }, ns: number): void {
  d.count++;
  d.ns += Math.max(0, Math.round(ns));
}
