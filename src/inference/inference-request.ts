import type { Tensor } from '../tensor/index.js';
import type { CancelSignal } from './cancel-signal.js';

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
}
