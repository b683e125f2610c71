import type { Tensor } from '../tensor/index.js';

/**
 * What one captured hop is: a pipeline step, a map item, a loop iteration, a BLS child call, or an
 * experiment's call of its variant or its mirror (recorded beside the variant's, to compare them).
 */
export type CaptureKind = 'step' | 'item' | 'iteration' | 'call' | 'variant' | 'mirror';

/**
 * Set only on a captured request (`--capture-config`): whoever sends a request on to another model,
 * or runs part of a plan for it, opens a record under the request's tap and hands the record on as
 * the child's tap, so the records of one request form its tree. A tap only records: it never throws,
 * never waits, and nothing it holds reaches a response.
 */
export interface CaptureTap {
  open(kind: CaptureKind, step: string, model: string, inputs: readonly Tensor[]): CaptureRecord;
}

/** One hop's record; `respond` once per response, then `end` (or `cancel`) once. */
export interface CaptureRecord extends CaptureTap {
  respond(outputs: readonly Tensor[], version?: string): void;
  /** The hop ended: `error` when it failed, nothing when it completed. */
  end(error?: unknown): void;
  /** The hop was cancelled (its caller unsubscribed, a `return` ended the run). */
  cancel(): void;
}
