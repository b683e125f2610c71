import type { Observable } from 'rxjs';
import type { InferenceRequest, InferenceResponse, ResponseSink, StopRequest } from '../inference/index.js';
import type { ModelConfig } from '../config/index.js';
import type { ModelListener, ModelMetadata, ModelStatistics } from '../model/index.js';
import type { CustomMetricsView } from './custom-metrics.js';

export type { ModelMetadata, TensorMetadata } from '../model/index.js';

// Defined by the repository (the layer below) and re-exported as part of the server API.
import type { LoadOptions, ModelIndexEntry } from '../repository/index.js';
export type { LoadOptions, ModelIndexEntry, ModelState } from '../repository/index.js';

export interface ServerMetadata { name: string; version: string; extensions: string[] }

/**
 * The in-process API, Triton's C API equivalent. Front ends only translate to and from it.
 * Methods that look up a model throw TributaryError (NOT_FOUND, UNAVAILABLE) rather than return null.
 */
export interface Server {
  isLive(): boolean;
  isReady(): boolean;
  /**
   * True from the start of a drain (SIGTERM): the HTTP front end then answers with
   * `Connection: close`, so kept-alive clients reconnect elsewhere instead of to a server going away.
   */
  isDraining?(): boolean;
  metadata(): ServerMetadata;
  /** Loaded and ready to take requests (the repository's state; asks no model). */
  modelReady(name: string, version?: string): boolean;
  /**
   * What the model ready endpoints answer (Triton's ModelReady): modelReady, and then the model's
   * own say when its backend has one (a script's isReady()), so it may be a promise. Server
   * readiness (isReady) and the request path never ask the models. Absent: modelReady.
   */
  modelReadyCheck?(name: string, version?: string): boolean | Promise<boolean>;
  modelMetadata(name: string, version?: string): ModelMetadata;
  modelConfig(name: string, version?: string): ModelConfig;
  /** Triton's statistics: every model (name undefined) or one model (all versions, or one). */
  modelStatistics(name?: string, version?: string): { model_stats: ModelStatistics[] };
  /** One response, or many for a decoupled model; the last has `final`. Unsubscribe cancels. */
  infer(request: InferenceRequest): Observable<InferenceResponse>;
  /**
   * `infer` without the Observable: the responses go to `sink`; returns how to stop the request
   * (undefined when it was refused at once). The unary front ends use it, so a request builds no
   * Observable or Subscriber on its way to the model. Absent: `infer` is subscribed instead.
   */
  start?(request: InferenceRequest, sink: ResponseSink): StopRequest | undefined;
  /**
   * The caller headers loaded experiments route on (lower case): the edge copies these into each
   * request's `routingHeaders`. Absent = none.
   */
  routingHeaders?(): readonly string[];
  repositoryIndex(options?: { ready?: boolean }): Promise<ModelIndexEntry[]>;
  loadModel(name: string, options?: LoadOptions): Promise<void>;
  unloadModel(name: string, options?: { unloadDependents?: boolean }): Promise<void>;
  /** Scripts' custom metric families, for the metrics endpoint (absent: none). */
  customMetrics?(): CustomMetricsView;
  /** Subscribe to per-request records (metrics). Returns an unsubscribe function. */
  addListener(listener: ModelListener): () => void;
  close(): Promise<void>;
}
