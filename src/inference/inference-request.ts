import type { Tensor } from '../tensor/index.js';
import type { CancelSignal } from './cancel-signal.js';
import type { CaptureTap } from './capture-tap.js';
import type { ResponseDemand } from './response-demand.js';

/** Request and response parameter values (KServe v2 `parameters`, gRPC InferParameter). */
export type ParamValue = string | number | boolean | bigint;
export type Parameters = Record<string, ParamValue>;

export interface RequestedOutput {
  name: string;
  /** e.g. `classification: N`, `binary_data`, shared-memory placement. */
  parameters?: Parameters;
}

export interface SequenceFlags {
  /** Correlation ID: uint64 (bigint) or string. */
  id: bigint | string;
  start: boolean;
  end: boolean;
}

/**
 * The in-process request: what every front end decodes into and every BLS child call builds.
 * Tensors are views, not copies. Cancellation is by unsubscribing from `infer()`'s Observable or by
 * aborting `signal`.
 */
export interface InferenceRequest {
  model: string;
  /** Version string; '' or undefined picks the version policy's default (highest ready). */
  version?: string;
  id?: string;
  inputs: readonly Tensor[];
  /** Outputs to return; undefined returns every output. */
  outputs?: readonly RequestedOutput[];
  /** Request parameters other than the reserved ones (those are parsed into fields). */
  parameters?: Parameters;
  /** 0 = the model's default priority level; 1 is the highest. */
  priority?: number;
  /** Queue timeout in microseconds (Triton's `timeout` parameter). */
  timeoutUs?: number;
  /**
   * Absolute deadline on the server clock (ms, `performance.now()` domain). Set once where a
   * request enters and carried unchanged to every pipeline step and BLS child.
   */
  deadline?: number;
  sequence?: SequenceFlags;
  /** An AbortSignal, or the server's lean CancelSignal. */
  signal?: CancelSignal;
  /**
   * Set by a front end that streams the responses (gRPC ModelStreamInfer, SSE): whether its client
   * is taking them. Carried through the model to its backend and to a pipeline's steps.
   */
  demand?: ResponseDemand;
  /**
   * Set only on a traced request (the trace extension): the model that serves it opens its trace
   * here, and pipeline steps and BLS children carry their parent's so they are traced under it.
   */
  trace?: TraceSpawner;
  /**
   * Set only on a captured request (--capture-config): pipeline steps, map items, loop iterations
   * and BLS children open their records under it and carry their own on (capture-tap.ts).
   */
  capture?: CaptureTap;
  /**
   * W3C trace context of a request that came with a `traceparent` (HTTP header, gRPC metadata):
   * in opentelemetry mode its span joins the caller's trace, and the tracer writes back the
   * traceparent of that span for the front end to return.
   */
  traceContext?: TraceContext;
  /**
   * The caller's headers that a loaded experiment routes on (`sticky: { header: x-user }`), by
   * lower-case name: copied by the data plane's edge from HTTP headers or gRPC metadata, carried
   * to pipeline steps and BLS children like `deadline`. Never a parameter the model sees.
   */
  routingHeaders?: Readonly<Record<string, string>>;
}

/** The caller's `traceparent`, and the one naming the server's span once the request is traced. */
export interface TraceContext {
  readonly parent: string;
  traceparent?: string;
}

/** Opens the trace of one model's request: the root of a sampled request, or a child of a traced one. */
export interface TraceSpawner {
  open(model: string, version: string, requestId: string | undefined): RequestTrace;
}

/**
 * Triton's trace activities, in the order a request passes them; CACHE_HIT / CACHE_MISS mark the
 * end of a response-cache lookup (Triton's enum has no cache activity, so they are custom ones).
 */
export type TraceActivity = 'REQUEST_START' | 'QUEUE_START' | 'CACHE_HIT' | 'CACHE_MISS' | 'COMPUTE_START' | 'COMPUTE_INPUT_END' | 'COMPUTE_OUTPUT_START' | 'COMPUTE_END' | 'REQUEST_END';

/** The trace of one batch execution, ended (clock ms) when the batch ends. */
export interface BatchTrace {
  end(ms: number): void;
}

/** One model's trace of one request: timestamps (clock ms), tensors at TENSORS level, then end(). */
export interface RequestTrace extends TraceSpawner {
  /** Whether input and output tensors are recorded (trace level TENSORS). */
  readonly tensors: boolean;
  stamp(activity: TraceActivity, ms: number): void;
  tensor(activity: 'TENSOR_QUEUE_INPUT' | 'TENSOR_BACKEND_OUTPUT', t: Tensor): void;
  /**
   * A fact about the request as an attribute of its span (the variant an experiment chose);
   * absent where traces have no place for one (triton mode, whose child trace names the variant).
   */
  note?(key: string, value: string): void;
  end(): void;
  /**
   * Opens the trace of a batch execution that holds this request, linked to every traced request
   * in `batch` (this one among them); absent where batches are not traced (triton mode).
   */
  batch?(model: string, version: string, batch: readonly RequestTrace[], requests: number, rows: number, ms: number): BatchTrace;
}
