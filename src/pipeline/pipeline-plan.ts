/**
 * The frozen execution plan of a pipeline (ensemble). Compiled once at load time; the request path
 * only reads it. Steps are in topological order; every index in the plan is a position in `steps`.
 */
import type { RequestedOutput } from '../inference/index.js';
import type { Tensor } from '../tensor/index.js';
import type { Condition } from './condition/index.js';

/** What a plan node does: call a model, run a sub-plan per item or per iteration, or end the run. */
export type PlanStepKind = 'model' | 'map' | 'loop' | 'return';

/** One test on the way into a node: its own `when`, or the choice of a switch case. */
export type PlanGuard =
  | { readonly kind: 'when'; readonly condition: Condition }
  /** caseIndex -1 = the default branch. */
  | { readonly kind: 'case'; readonly switchId: number; readonly caseIndex: number };

export interface PlanSwitch {
  /** Index in PipelinePlan.switches. */
  readonly id: number;
  /** `switch#<n>` (1-based, in YAML order across the pipeline and its bodies) or the YAML `name:`, for statistics and messages. */
  readonly name: string;
  readonly cases: readonly Condition[];
  readonly hasDefault: boolean;
  /** Enclosing guards (a switch inside a case or under a `when`). */
  readonly guards: readonly PlanGuard[];
}

export interface PlanMap {
  /** Outer tensor whose first dim is iterated. */
  readonly over: string;
  /** Item name inside `plan`. */
  readonly as: string;
  readonly concurrency: number;
  readonly maxItems: number;
  /** Inputs: `as` + the outer tensors it reads; outputs: the item tensors. */
  readonly plan: PipelinePlan;
}

export interface PlanLoop {
  readonly max: number;
  /** Loop tensor `name` starts as outer tensor `from`. */
  readonly carry: readonly { readonly name: string; readonly from: string }[];
  /** Reads carried names and outer tensors; absent = run `max` iterations. */
  readonly while?: Condition;
  /** Carried tensor `name` takes body tensor `from` for the next iteration. */
  readonly next: readonly { readonly name: string; readonly from: string }[];
  /** Inputs: carried names + outer tensors read; outputs: the `next` body tensors. */
  readonly plan: PipelinePlan;
}

/** One output of a `return`: a pipeline tensor, or a literal typed by the pipeline output's config. */
export interface PlanReturnOutput {
  readonly name: string;
  readonly tensor?: string;
  /** Without the batch dim: a batching pipeline's run repeats it to the request's batch size. */
  readonly literal?: Tensor;
}

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
  /** 'model' for a plain step (then model/version/requestedOutputs apply). */
  readonly kind: PlanStepKind;
  /** [] = always runs; all must hold, in order. */
  readonly guards: readonly PlanGuard[];
  /** kind 'map': `inputs` bind outer tensors (name = inner name), `outputs` bind inner tensors (name) to outer ones (tensor). */
  readonly map?: PlanMap;
  /** kind 'loop': bindings as for a map. */
  readonly loop?: PlanLoop;
  /** kind 'return' (`inputs` = the tensors it reads). */
  readonly ret?: readonly PlanReturnOutput[];
}

/** A pipeline input or output: the request path needs only its name (the model validates the rest). */
export interface PlanTensor {
  readonly name: string;
  /** On a pipeline output produced on the other side of the batching divide. */
  readonly bridge?: BatchBridge;
  /**
   * Wire datatype and config dims (with the batch dim when the plan batches), where the run needs
   * them: a map's sub-plan outputs, to make the dim-0-size-0 tensors of a map over zero items.
   */
  readonly datatype?: string;
  readonly dims?: readonly number[];
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
  readonly switches: readonly PlanSwitch[];
  /** Tensor -> positions of the nodes that produce it (several only across one switch's cases). */
  readonly producers: ReadonlyMap<string, readonly number[]>;
  /** Pipeline outputs declared `optional: true`: left out of the response when SKIPPED. */
  readonly optionalOutputs: ReadonlySet<string>;
}
