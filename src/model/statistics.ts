/** Statistics-extension shapes (Triton's /v2/models/{m}/stats JSON), and per-request records. */
import type { StatDuration } from '../scheduler/index.js';

export type { StatDuration };

export interface InferStatistics {
  success: StatDuration;
  fail: StatDuration;
  queue: StatDuration;
  compute_input: StatDuration;
  compute_infer: StatDuration;
  compute_output: StatDuration;
  cache_hit: StatDuration;
  cache_miss: StatDuration;
}

export interface InferBatchStatistics {
  batch_size: number;
  compute_input: StatDuration;
  compute_infer: StatDuration;
  compute_output: StatDuration;
}

interface InferResponseStatistics {
  compute_infer: StatDuration;
  compute_output: StatDuration;
  success: StatDuration;
  fail: StatDuration;
  empty_response: StatDuration;
  cancel: StatDuration;
}

export interface ModelStatistics {
  name: string;
  version: string;
  /** ms since the epoch of the last inference; 0 if none. */
  last_inference: number;
  inference_count: number;
  execution_count: number;
  inference_stats: InferStatistics;
  response_stats: Record<string, InferResponseStatistics>;
  batch_stats: InferBatchStatistics[];
  memory_usage: { type: string; id: number; byte_size: number }[];
  /**
   * Pipelines only (a Tributary addition): per-step statistics, and wall time kept apart from
   * the summed compute of steps so parallel branches do not look sequential.
   */
  step_stats?: {
    step: string; model: string; version: string; count: number; ns: number; fail: number;
    /**
     * Control flow (YAML pipelines): runs that skipped the node; runs whose `return` cancelled its
     * call while it ran; items of a map; iterations of a loop.
     */
    skipped?: number; cancelled?: number; items?: number; iterations?: number;
  }[];
  /** Pipelines with a switch: per case (its index, or 'default'), runs that took it and runs that did not. */
  branch_stats?: { switch: string; case: string; condition: string; taken: number; skipped: number }[];
  wall?: StatDuration;
  /** Sequence batcher models only. */
  sequence_stats?: { active: number; started: number; ended: number; released_idle: number };
}

export type FailureReason = 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER';

/** One finished request, reported to listeners (metrics) by the model. */
export interface RequestRecord {
  model: string;
  version: string;
  success: boolean;
  reason?: FailureReason;
  /** Rows in the request (batch size of the request itself). */
  batchSize: number;
  requestNs: number;
  queueNs: number;
  computeInputNs: number;
  computeInferNs: number;
  computeOutputNs: number;
  /** Time to the first response (decoupled models and all others). */
  firstResponseNs?: number;
  /**
   * A model with the response cache on: a hit (answered from the cache, ns = key and lookup) or a
   * successful miss (ns = key, lookup and insertion), as Triton's cache_hit / cache_miss.
   */
  cache?: { hit: boolean; ns: number };
}

export interface ExecutionRecord {
  model: string;
  version: string;
  batchSize: number;
}

export interface ModelListener {
  onRequest?(r: RequestRecord): void;
  onExecution?(r: ExecutionRecord): void;
  onPending?(model: string, version: string, depth: number): void;
  onChildCall?(r: ChildCallRecord): void;
  /** An experiment routed a request to a variant (one record object per variant, reused). */
  onExperimentRoute?(r: ExperimentRouteRecord): void;
  /** What became of an experiment's copy of a request for its mirror. */
  onExperimentMirror?(r: ExperimentMirrorRecord): void;
}

/** `variant` is the variant's model name, `name:version` when the experiment pins a version. */
export interface ExperimentRouteRecord {
  readonly experiment: string;
  readonly variant: string;
}

/** sent: handed to the mirror; dropped: the mirror's in-flight bound was full; failed: the mirror answered an error. */
export interface ExperimentMirrorRecord {
  readonly experiment: string;
  readonly outcome: 'sent' | 'dropped' | 'failed';
}

/** One BLS child call, from the script's call to the child's last response or error. */
export interface ChildCallRecord {
  caller: string;
  callee: string;
  ns: number;
  success: boolean;
}

export function emptyDuration(): StatDuration {
  return { count: 0, ns: 0 };
}

export function emptyInferStatistics(): InferStatistics {
  return {
    success: emptyDuration(), fail: emptyDuration(), queue: emptyDuration(), compute_input: emptyDuration(),
    compute_infer: emptyDuration(), compute_output: emptyDuration(), cache_hit: emptyDuration(), cache_miss: emptyDuration(),
  };
}
