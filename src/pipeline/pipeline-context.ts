/**
 * What every compile check reads: the pipeline config, its steps with resolved model configs, and
 * who produces and who consumes each pipeline tensor. Built once per compile.
 */
import type { ModelConfig, PipelineLoop, PipelineMap, PipelineReturn } from '../config/index.js';
import type { Condition } from './condition/index.js';
import type { PipelinePlan, PlanStepKind } from './pipeline-plan.js';
import type { ProblemSink } from './pipeline-problem.js';

export type Resolve = (model: string, version: number) => ModelConfig | undefined;

/** A guard as written: a `when:` (compiled later, at `path`) or the choice of a switch case. */
export type GuardSource =
  | { readonly kind: 'when'; readonly source: string; readonly path: string }
  | { readonly kind: 'case'; readonly switchId: number; readonly caseIndex: number };

export interface SwitchInfo {
  readonly id: number;
  readonly name: string;
  readonly path: string;
  /** Each case's condition source and its config path (`...cases[i].when`). */
  readonly cases: readonly { readonly source: string; readonly path: string }[];
  readonly hasDefault: boolean;
  readonly guards: readonly GuardSource[];
}

/** A map or loop body, compiled as its own scope. */
export interface BodyInfo {
  readonly plan: PipelinePlan | undefined;
  /** Type of each body tensor (wire datatype, full dims), for the outer types and the carry check. */
  readonly types: ReadonlyMap<string, TensorType>;
}

/** Wire datatype and full dims (a batching producer's leading -1 included). */
export interface TensorType { readonly datatype: string; readonly full: readonly number[] }

export interface StepInfo {
  readonly index: number;
  readonly kind: PlanStepKind;
  /** Enclosing case guards and the node's own `when`, outermost first. */
  readonly guards: readonly GuardSource[];
  /** Where the node sits, for messages: '' at top level, else e.g. `switch#1 case 2`. */
  readonly branch: string;
  readonly map?: PipelineMap;
  readonly loop?: PipelineLoop;
  readonly ret?: PipelineReturn;
  readonly body?: BodyInfo;
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
  readonly switches: readonly SwitchInfo[];
  /** Compiled conditions by config path (`...when`, `...cases[i].when`, `...loop.while`). */
  readonly conditions: ReadonlyMap<string, Condition>;
  /** Set when the scope is a map or loop body rather than the pipeline. */
  readonly body?: 'map' | 'loop';
  readonly sink: ProblemSink;
}

export const q = (s: unknown): string => `'${String(s)}'`;

/** `ensemble_scheduling.step[1].switch.cases[0].steps[0]` -> `step[1].switch.cases[0].steps[0]`, as messages say it. */
export const shortPath = (path: string): string => path.replace(/^ensemble_scheduling\./, '');

/** Message prefix naming the pipeline and, when given, the step. */
export function where(ctx: Pick<PipelineContext, 'name'>, step?: StepInfo): string {
  return step ? `pipeline ${q(ctx.name)}, ${step.label}` : `pipeline ${q(ctx.name)}`;
}

export function describeProducer(ctx: PipelineContext, p: Producer): string {
  return p.kind === 'input' ? 'the pipeline input' : `${ctx.steps[p.step]!.label} output ${q(p.key)}`;
}
