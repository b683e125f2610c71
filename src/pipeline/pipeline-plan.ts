/**
 * The frozen execution plan of a pipeline (ensemble). Compiled once at load time; the request path
 * only reads it. Steps are in topological order; every index in the plan is a position in `steps`.
 */
import type { RequestedOutput } from '../inference/index.js';

/**
 * Where a tensor crosses between a batching and a non-batching side, Triton's ensemble scheduler
 * (ReshapeTensorDims) adds or strips a batch dim of 1; the shapes it compares are `dims`, the
 * receiving side's config dims. 'add': the receiver batches and the tensor matches `dims`, so it
 * gets a leading 1. 'strip': the receiver does not batch, the tensor does not match `dims` and
 * its leading dim is 1, so that dim goes. Otherwise the tensor passes as it is.
 */
export interface BatchBridge {
  readonly mode: 'add' | 'strip';
  readonly dims: readonly number[];
}

/** One tensor edge of a step: the step model's own tensor name and the pipeline tensor it maps. */
interface PlanBinding {
  /** Input or output name on the step's model (the key of input_map / output_map). */
  readonly name: string;
  /** Pipeline tensor name (the value of input_map / output_map). */
  readonly tensor: string;
  /** On a step input fed from the other side of the batching divide. */
  readonly bridge?: BatchBridge;
}

export interface PlanStep {
  /** Position in `PipelinePlan.steps` (topological order). */
  readonly position: number;
  /** Index in `ensemble_scheduling.step` (for messages and config paths). */
  readonly configIndex: number;
  /** Name used in messages and statistics: the model name, or `model#index` when a model repeats. */
  readonly name: string;
  readonly model: string;
  /** Version string for the host ('' = the version policy's latest). */
  readonly version: string;
  readonly inputs: readonly PlanBinding[];
  readonly outputs: readonly PlanBinding[];
  /** Requested outputs for the child request, built once. */
  readonly requestedOutputs: readonly RequestedOutput[];
  /** The step model is decoupled: each of its responses starts its downstream steps again. */
  readonly decoupled: boolean;
}

/** A pipeline input or output: the request path needs only its name (the model validates the rest). */
export interface PlanTensor {
  readonly name: string;
  /** On a pipeline output produced on the other side of the batching divide. */
  readonly bridge?: BatchBridge;
}

export interface PipelinePlan {
  readonly name: string;
  /** The pipeline is decoupled: it streams one response per completed set of outputs. */
  readonly decoupled: boolean;
  /** 0 = unbounded. */
  readonly maxInflightRequests: number;
  readonly inputs: readonly PlanTensor[];
  readonly outputs: readonly PlanTensor[];
  readonly steps: readonly PlanStep[];
  /** Pipeline tensor name -> positions of the steps that read it. */
  readonly consumers: ReadonlyMap<string, readonly number[]>;
}
