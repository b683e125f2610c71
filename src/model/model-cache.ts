import { requestKey, type CachedResponse, type ResponseCache } from '../cache/index.js';
import { Errors } from '../errors.js';
import type { InferenceRequest, InferenceResponse, RequestTrace, ResponseSink, StopRequest } from '../inference/index.js';
import { endTrace } from './end-trace.js';
import type { Clock } from '../scheduler/index.js';
import type { Tensor } from '../tensor/index.js';
import type { StatsCollector } from './stats-collector.js';

/** A model's work item as the cache sees it: a miss carries its key to the response. */
interface CacheableItem { missedCache(key: string, ns: number): void; cancel(): void }

/**
 * One model version's use of the server's response cache: its keys, its hits answered without
 * queueing, its misses' responses stored. Durations follow Triton's statistics: a hit's cache_hit
 * is the key plus the lookup; a miss's cache_miss is the key, the lookup and the insertion.
 */
export class ModelCache {
  readonly #cache: ResponseCache;
  readonly #model: string;
  readonly #version: string;
  readonly #clock: Clock;
  readonly #stats: StatsCollector;

  constructor(cache: ResponseCache, model: string, version: string, clock: Clock, stats: StatsCollector) {
    this.#cache = cache;
    this.#model = model;
    this.#version = version;
    this.#clock = clock;
    this.#stats = stats;
  }

  /**
   * A response from the cache, or a miss: `make()` the model's work item, mark it with its key (its
   * final response is stored) and `enqueue` it. A Redis lookup answers later; cancelling meanwhile
   * counts as CANCELED like a cancel in the queue. A traced request gets CACHE_HIT or CACHE_MISS
   * when the lookup ends; a hit's trace ends there, with no compute timestamps.
   */
  serve<I extends CacheableItem>(sink: ResponseSink, request: InferenceRequest, inputs: readonly Tensor[], batchSize: number, start: number, trace: RequestTrace | undefined, make: () => I, enqueue: (item: I) => void): StopRequest {
    const lookupStart = this.#clock.now();
    const key = requestKey(this.#model, this.#version, inputs, request);
    let item: I | undefined;
    let settled = false;
    const onLookup = (hit: CachedResponse | undefined) => {
      if (settled) return;
      settled = true;
      if (trace) trace.stamp(hit ? 'CACHE_HIT' : 'CACHE_MISS', this.#clock.now());
      if (hit) return this.#answer(sink, request, hit, batchSize, start, lookupStart, trace);
      if (request.signal?.aborted) {
        this.#stats.failure('CANCELED', (this.#clock.now() - start) * 1e6, batchSize);
        return sink.error(Errors.cancelled(this.#model));
      }
      item = make();
      item.missedCache(key, (this.#clock.now() - lookupStart) * 1e6);
      enqueue(item);
    };
    const found = this.#cache.lookup(key);
    if (found instanceof Promise) found.then(onLookup, () => onLookup(undefined));
    else onLookup(found);
    return () => {
      if (item) item.cancel();
      else if (!settled) {
        settled = true;
        this.#stats.failure('CANCELED', (this.#clock.now() - start) * 1e6, batchSize);
      }
    };
  }

  /** Stores a copy of the response; returns the time it took, in ns. */
  insert(key: string, response: InferenceResponse): number {
    const t0 = this.#clock.now();
    this.#cache.insert(key, response.parameters ? { outputs: response.outputs, parameters: response.parameters } : { outputs: response.outputs });
    return (this.#clock.now() - t0) * 1e6;
  }

  /** A hit: recorded first (so statistics read after the response see it), then answered. */
  #answer(sink: ResponseSink, request: InferenceRequest, hit: CachedResponse, batchSize: number, start: number, lookupStart: number, trace: RequestTrace | undefined): void {
    const end = this.#clock.now();
    const requestNs = (end - start) * 1e6;
    this.#stats.request({
      success: true, batchSize, requestNs, queueNs: (lookupStart - start) * 1e6,
      computeInputNs: 0, computeInferNs: 0, computeOutputNs: 0, firstResponseNs: requestNs,
      cache: { hit: true, ns: (end - lookupStart) * 1e6 },
    });
    if (trace) endTrace(trace, undefined, undefined, undefined, end);
    const resp: InferenceResponse = { model: this.#model, version: this.#version, outputs: [...hit.outputs], final: true };
    if (request.id !== undefined) resp.id = request.id;
    if (hit.parameters) resp.parameters = { ...hit.parameters };
    sink.next(resp);
    sink.complete();
  }
}
