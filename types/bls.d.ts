/**
 * `tributary/bls`: the API a TypeScript model (`<model>/1/model.ts`, config `backend: "typescript"`)
 * sees inside its sandbox. The runtime that implements it is bundled into the script at load time
 * (backends/typescript/bls/); test/backends/typescript/bls-types-check.ts holds the two to each
 * other, member by member.
 *
 * The sandbox is a V8 isolate: no fs, net, process, require, fetch or timers. `console`,
 * `TextEncoder` and `TextDecoder` exist (console lines go to the server log).
 */
import type { DataType } from '../src/tensor/index.js';
import type { ErrorKind } from '../src/errors.js';

/** The server's tensor datatypes (KServe v2 names: FP32, BYTES, ...). */
export type { DataType };

export type TypedArray =
  | Uint8Array | Uint16Array | Uint32Array | BigUint64Array
  | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Float32Array | Float64Array;

/** BYTES elements are raw bytes; `Tensor.strings()` decodes them as UTF-8. */
export type TensorData = TypedArray | Uint8Array[];

/** What `new Tensor()` accepts: storage as is, or plain arrays converted to the datatype's storage. */
export type TensorInit = TensorData | readonly number[] | readonly bigint[] | readonly boolean[] | readonly string[];

export type ParamValue = string | number | boolean | bigint;
export type Parameters = Record<string, ParamValue>;

/** Triton's error kinds; a `ModelError` carries one to the client (HTTP/gRPC status). */
export type { ErrorKind };

/**
 * A tensor. Numeric data is a typed array (INT64/UINT64: BigInt64Array/BigUint64Array; FP16/BF16:
 * raw Uint16Array words; BOOL: Uint8Array); BYTES data is one Uint8Array per element.
 */
export declare class Tensor {
  constructor(name: string, datatype: DataType, shape: readonly number[], data: TensorInit);
  readonly name: string;
  readonly datatype: DataType;
  readonly shape: readonly number[];
  readonly data: TensorData;
  /** BYTES elements decoded as UTF-8 (throws ModelError for other datatypes). */
  strings(): string[];
}

/**
 * An error a script throws or returns. `kind` sets the status the client sees (default INTERNAL).
 * Failed BLS calls reject with a ModelError whose `kind` and `code` are the callee's.
 */
export declare class ModelError extends Error {
  /** `code` names the failure for clients that branch on it (the server's own are TRB_*). */
  constructor(message: string, kind?: ErrorKind, code?: string);
  readonly kind: ErrorKind;
  /** Error code from the server's catalog (e.g. TRB_MODEL_NOT_FOUND) when the error came from the server. */
  readonly code?: string;
}

export interface InferenceResponseInit {
  outputs?: Tensor[];
  parameters?: Parameters;
  /** Fail this request only (the other requests of the batch still get their responses). */
  error?: ModelError | string;
}

export declare class InferenceResponse {
  constructor(init?: InferenceResponseInit);
  readonly outputs: readonly Tensor[];
  readonly parameters: Parameters;
  /** The output named `name`; throws ModelError naming the available outputs when missing. */
  output(name: string): Tensor;
  /** The output named `name`, or undefined. */
  findOutput(name: string): Tensor | undefined;
  hasError(): boolean;
  error(): ModelError | undefined;
}

export interface SendOptions {
  /** Last response of the request (default false). */
  final?: boolean;
}

/** Decoupled models (config `model_transaction_policy { decoupled: true }`) respond through this. */
export interface ResponseSender {
  /**
   * Send a response; `send(undefined, { final: true })` closes the stream without one. The promise
   * resolves at once while the request's client takes its responses, and waits while it does not
   * (a slow or stalled stream): `await sender.send(...)` makes the script wait for its client. It
   * rejects with a CANCELLED ModelError once the request is cancelled or ended by the server.
   * A script that does not await sends on, and its request fails once its stream is full.
   */
  send(response: InferenceResponse | undefined, options?: SendOptions): Promise<void>;
}

/** One request handed to `execute`. */
export interface Request {
  readonly id: string;
  /** Input by name; throws ModelError naming the request's inputs when absent. */
  input(name: string): Tensor;
  hasInput(name: string): boolean;
  readonly inputs: readonly Tensor[];
  readonly parameters: Parameters;
  /** The outputs the client asked for (all of the config's outputs when it named none). */
  readonly requestedOutputNames: readonly string[];
  /** Sequence correlation ID, when the request belongs to a sequence. */
  readonly correlationId: bigint | string | undefined;
  /** Only for decoupled models; throws ModelError otherwise. */
  responseSender(): ResponseSender;
  /** True once the client cancelled or the request's deadline passed. */
  isCancelled(): boolean;
}

export interface InferenceRequestInit {
  model: string;
  /** Version string; omitted picks the version policy's default. */
  version?: string;
  inputs: readonly Tensor[];
  /** Output names to return; omitted returns every output. */
  outputs?: readonly string[];
  parameters?: Parameters;
  correlationId?: bigint | string;
  sequenceStart?: boolean;
  sequenceEnd?: boolean;
  /** Queue timeout for the child in microseconds (the parent's deadline applies as well). */
  timeout?: number;
  /** 1 is the highest; omitted inherits the parent's priority. */
  priority?: number;
  /**
   * The request this call works for, when `execute` got a batch of several. The child inherits
   * its deadline, priority and cancellation. Omitted: the whole batch (the child is cancelled only
   * when every request of the batch is).
   */
  parent?: Request;
}

/** A BLS call to any loaded model (ONNX, script or ensemble). */
export declare class InferenceRequest {
  constructor(init: InferenceRequestInit);
  readonly model: string;
  /**
   * Run the request; resolves with its one response. Rejects with ModelError (the callee's kind and
   * code) when it fails, or when the callee is decoupled and sent more than one response (use stream()).
   */
  exec(): Promise<InferenceResponse>;
  /**
   * The responses of a decoupled model as they come. Leaving the loop early (break, return, throw)
   * cancels the child request.
   */
  stream(): AsyncIterable<InferenceResponse>;
}

/** What `initialize` receives. */
export interface InitializeArgs {
  /** The model configuration (Triton's JSON field names). */
  readonly config: ModelConfigJson;
  readonly modelName: string;
  readonly modelVersion: string;
  readonly instanceIndex: number;
  /** Files of the model directory by path relative to it ("tokenizer.json", "1/model.ts"). */
  readonly files: Readonly<Record<string, Uint8Array>>;
  /** A file decoded as UTF-8; throws ModelError naming the available files when absent. */
  readText(name: string): string;
  /** A file parsed as JSON; throws ModelError with the file name when absent or invalid. */
  readJson<T = unknown>(name: string): T;
}

/** The config as JSON, loosely typed (see the server's ModelConfig for the full shape). */
export interface ModelConfigJson {
  name: string;
  max_batch_size: number;
  input: { name: string; data_type: string; dims: number[]; optional?: boolean }[];
  output: { name: string; data_type: string; dims: number[] }[];
  parameters: Record<string, { string_value: string }>;
  model_transaction_policy: { decoupled: boolean };
  [key: string]: unknown;
}

/** The default export of model.ts. */
export interface Model {
  initialize?(args: InitializeArgs): void | Promise<void>;
  /**
   * One response per request, in order (non-decoupled models). Decoupled models respond through
   * `request.responseSender()` and return nothing.
   */
  execute(requests: Request[]): InferenceResponse[] | void | Promise<InferenceResponse[] | void>;
  finalize?(): void | Promise<void>;
  /**
   * Asked by the model ready endpoint (HTTP `GET /v2/models/<m>/ready`, gRPC ModelReady), never
   * by server readiness or requests: the model is ready when this answers exactly true, within
   * the parameter ready_timeout_ms (default 1000). Throwing, or answering late, is not ready.
   */
  isReady?(): boolean | Promise<boolean>;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  verbose(message: string): void;
}

/** Lines go to the server log, tagged with the model name. */
export declare const logger: Logger;

/** Triton's metric kinds. */
export type MetricKind = 'counter' | 'gauge' | 'histogram';

export interface MetricFamilyInit {
  /** A Prometheus metric name; nv_* and tributary_* are the server's. */
  name: string;
  description: string;
  kind: MetricKind;
}

export interface MetricInit {
  /** Label name to value; model and version are added by the server (le and quantile are reserved). */
  labels?: Readonly<Record<string, string>>;
  /** Histograms only, and required there: increasing upper bounds (+Inf is added). */
  buckets?: readonly number[];
}

/**
 * One series of a family. Updates are batched inside the sandbox and reach the server without
 * the script waiting for it; they show on /metrics after the script's current run.
 */
export interface Metric {
  readonly kind: MetricKind;
  /** Counters: a non-negative amount (negative throws INVALID_ARG). Gauges: any amount. */
  increment(value: number): void;
  /** Gauges only. */
  set(value: number): void;
  /** Histograms only. */
  observe(value: number): void;
}

/**
 * A custom metric family (Triton's pb_utils.MetricFamily), on the server's /metrics with `model`
 * and `version` labels. Throws ModelError (TRB_SCRIPT_METRIC_*) when the name, kind or a bound
 * is refused: at most 64 families per model and 1024 label sets per family.
 */
export declare class MetricFamily {
  constructor(init: MetricFamilyInit);
  readonly name: string;
  readonly description: string;
  readonly kind: MetricKind;
  /** The metric with these labels (the same labels give the same series). */
  metric(init?: MetricInit): Metric;
}

export interface LoadModelOptions {
  /** A configuration replacing the model's config file: JSON text, or an object sent as JSON. */
  config?: string | Readonly<Record<string, unknown>>;
  /** Model directory files by relative path ("1/model.onnx"; "file:1/model.onnx" too); needs `config`. */
  files?: Readonly<Record<string, Uint8Array>>;
}

export interface UnloadModelOptions {
  /** Also unload the pipeline steps it loaded that no other model uses. */
  unloadDependents?: boolean;
}

/**
 * Load or reload a model (explicit model control mode only, as the load API): resolves once it is
 * loaded. Refused for this model and for models waiting on the current call (it would wait for itself).
 */
export declare function loadModel(name: string, options?: LoadModelOptions): Promise<void>;
/** Unload a model (explicit mode only): resolves once the unload has begun, not waiting for its requests. */
export declare function unloadModel(name: string, options?: UnloadModelOptions): Promise<void>;
/** What the model's ready endpoint would answer (its isReady() included). */
export declare function isModelReady(name: string, version?: string): Promise<boolean>;
