/**
 * The contract of a pipeline condition (`when:`, switch cases, `while:`): what the compiler asks of
 * the pipeline (the env) and what the runner gets back (a Condition it evaluates per run).
 */
import type { Parameters } from '../../inference/index.js';
import type { Tensor } from '../../tensor/index.js';

export interface ConditionTensorInfo {
  /** Wire datatype: 'FP32', 'BYTES', ... */
  readonly datatype: string;
  /** Full dims, including a leading -1 batch dim when the pipeline batches. */
  readonly dims: readonly number[];
  /** Class labels of the tensor (from its label file), which `top1()` needs. */
  readonly labels?: readonly string[];
}

export interface ConditionEnv {
  /** undefined = unknown tensor (a load error). */
  tensor(name: string): ConditionTensorInfo | undefined;
  /** The tensor names in scope, for the "did you mean" of an unknown tensor (optional). */
  names?(): Iterable<string>;
}

/** A load-time problem; offset and length (UTF-16 units) point at the offending token in the source. */
export interface ConditionProblem {
  readonly message: string;
  readonly offset: number;
  readonly length: number;
}

export interface Condition {
  readonly source: string;
  /** Tensor names it reads, each once, in order of first use. */
  readonly reads: readonly string[];
  /**
   * `read` returns the tensor, or undefined when absent/SKIPPED (the condition is then false).
   * A run-time type error (a tensor of several values compared as one, a parameter of the wrong
   * type) throws a catalog error (TRB_PIPELINE_CONDITION_*, INVALID_ARG) naming the condition.
   */
  evaluate(read: (name: string) => Tensor | undefined, params: Parameters | undefined): boolean;
}

export interface CompiledCondition {
  readonly condition?: Condition;
  readonly problems: ConditionProblem[];
}
