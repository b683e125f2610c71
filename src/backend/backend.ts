import type { ModelConfig, ModelInstanceGroup } from '../config/index.js';
import type { CancelSignal, InferenceRequest, Parameters } from '../inference/index.js';
import type { Logger } from '../logger.js';
import type { Tensor } from '../tensor/index.js';
import type { ModelHost } from './model-host.js';

/**
 * One request as a backend instance sees it. The scheduler hands an instance a batch of these.
 * Inputs have already been validated against the config (names, datatypes, shapes, batch size).
 */
export interface BackendRequest {
  readonly request: InferenceRequest;
  /** Rows on the batch dimension (1 when max_batch_size is 0). */
  readonly batchSize: number;
  /** Aborted when the request is cancelled or its deadline passes (a lean AbortSignal subset). */
  readonly signal: CancelSignal;
  /**
   * Send a response. A non-decoupled model sends exactly one, with `final` true. A decoupled model
   * sends any number; the last call has `final` true (its response may be null: no response, just
   * the end of the stream). Calls after the final one are ignored.
   */
  send(response: { outputs: Tensor[]; parameters?: Parameters } | null, final: boolean): void;
  /** Fail this request (ends its stream). */
  fail(error: unknown): void;
}

/** Time spent per batch execution, for the statistics extension (Triton's compute_* split). */
export interface ExecuteTimings {
  computeInputNs: number;
  computeInferNs: number;
  computeOutputNs: number;
}

/** A backend instance executes batches; several may run concurrently (instance_group count). */
export interface BackendInstance {
  /**
   * Execute a batch. Resolves when the instance is free for the next batch; for a decoupled model
   * responses may still be sent after that. Must not throw for per-request problems: fail the
   * request instead. A rejection fails every request of the batch that has not completed.
   * An instance that has answered the whole batch by the time it returns may return its result
   * (or nothing) instead of a promise: the batch then ends at once, without a promise and a
   * microtask per batch.
   */
  execute(batch: readonly BackendRequest[]): Promise<ExecuteTimings | void> | ExecuteTimings | void;
  finalize(): Promise<void>;
}

/** What a backend needs to load a model version. */
export interface LoadContext {
  /** Absolute path of the model directory (holds config.pbtxt). */
  readonly modelDir: string;
  /** Absolute path of the version directory. */
  readonly versionDir: string;
  readonly version: string;
  /** Absolute path of the model file (versionDir + default_model_filename), may not exist. */
  readonly modelFile: string;
  /** In-process entry to the server, for BLS calls. */
  readonly host: ModelHost;
  readonly log: Logger;
  /** This backend's --backend-config settings: defaults for the parameters a model does not set. */
  readonly settings?: Readonly<Record<string, string>>;
}

/** A model version loaded by a backend. */
export interface BackendModel {
  /** Create one instance of an instance group. Called at load time only. */
  createInstance(index: number, group: ModelInstanceGroup): Promise<BackendInstance>;
  finalize?(): Promise<void>;
  /**
   * The model's own say in its readiness (Triton's Python is_ready), asked by the model ready
   * endpoint only, never by server readiness or the request path. Absent: ready while loaded.
   */
  isReady?(): boolean | Promise<boolean>;
}

export interface BackendFactory {
  /** Name as written in config `backend:` ("onnxruntime", "typescript", "identity"). */
  readonly name: string;
  /** Platforms that map to this backend ("onnxruntime_onnx"). */
  readonly platforms?: readonly string[];
  /** File looked for in a version directory when the config names none. */
  readonly defaultModelFilename: string;
  /**
   * The backend's own directory, and the names in it a config's `runtime` may give (Triton's
   * runtime names the backend library, or a Python-based backend's model.py, inside the backend
   * directory). A backend with a single implementation lists none: `runtime` must stay empty.
   */
  readonly directory?: string;
  readonly runtimes?: readonly string[];
  /**
   * The model parameters --backend-config may give a default for, each with its value check
   * (returns why a value is refused, or undefined).
   */
  readonly settings?: Readonly<Record<string, (value: string) => string | undefined>>;
  /**
   * Auto-complete a partial config from the model file (strict config off). Returns the completed
   * config; throws a TributaryError naming both sides when config and model disagree.
   */
  autoComplete?(config: ModelConfig, ctx: LoadContext): Promise<ModelConfig>;
  /**
   * The load-time checks that need no running instance (a script's bundle and type check, a model
   * file's inputs and outputs against the config), throwing what `load` would throw. `tributary
   * validate` runs them so that it refuses exactly what a load refuses; `load` runs the same code.
   */
  check?(config: ModelConfig, ctx: LoadContext): Promise<void>;
  load(config: ModelConfig, ctx: LoadContext): Promise<BackendModel>;
}
