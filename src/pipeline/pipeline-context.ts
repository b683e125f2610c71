/**
 * What every compile check reads: the pipeline config, its steps with resolved model configs, and
 * who produces and who consumes each pipeline tensor. Built once per compile.
 */
import type { ModelConfig } from '../config/index.js';
import type { ProblemSink } from './pipeline-problem.js';

export type Resolve = (model: string, version: number) => ModelConfig | undefined;

export interface StepInfo {
  readonly index: number;
  /** Message and statistics name: model name, or `model#index` when a model appears twice. */
  readonly name: string;
  readonly model: string;
  readonly version: number;
  /** Resolved step model config; undefined when the model is unknown. */
  readonly config: ModelConfig | undefined;
  readonly inputMap: readonly (readonly [key: string, tensor: string])[];
  readonly outputMap: readonly (readonly [key: string, tensor: string])[];
  readonly path: string;
  /** `step 'name' (step[i], model 'm')` */
  readonly label: string;
}

/** `step` is an index into PipelineContext.steps, set as the context is built: lookups by it are in range. */
export type Producer =
  | { readonly kind: 'input'; readonly index: number }
  | { readonly kind: 'step'; readonly step: number; readonly key: string };

export type Consumer =
  | { readonly kind: 'step'; readonly step: number; readonly key: string }
  | { readonly kind: 'output'; readonly index: number };

export interface PipelineContext {
  readonly config: ModelConfig;
  readonly name: string;
  readonly steps: readonly StepInfo[];
  readonly producers: ReadonlyMap<string, readonly Producer[]>;
  readonly consumers: ReadonlyMap<string, readonly Consumer[]>;
  readonly sink: ProblemSink;
}

export const q = (s: unknown): string => `'${String(s)}'`;

/** Message prefix naming the pipeline and, when given, the step. */
export function where(ctx: Pick<PipelineContext, 'name'>, step?: StepInfo): string {
  return step ? `pipeline ${q(ctx.name)}, ${step.label}` : `pipeline ${q(ctx.name)}`;
}

export function describeProducer(ctx: PipelineContext, p: Producer): string {
  return p.kind === 'input' ? 'the pipeline input' : `${ctx.steps[p.step]!.label} output ${q(p.key)}`;
}
