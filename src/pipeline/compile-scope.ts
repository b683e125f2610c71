import type { ModelConfig, NestedStep } from '../config/index.js';
import { buildPipelineGraph, conditionReads } from './build-pipeline-graph.js';
import { checkConstructs } from './check-constructs.js';
import { checkDecoupledFlow } from './check-decoupled-flow.js';
import { checkPaths } from './check-paths.js';
import { checkStepModels } from './check-step-models.js';
import { checkTensorFlow } from './check-tensor-flow.js';
import { checkTensorTypes } from './check-tensor-types.js';
import { compileConditions, type LabelsOf } from './compile-conditions.js';
import { createPipelineContext } from './create-pipeline-context.js';
import { findStepCycles } from './find-step-cycles.js';
import { flattenSteps, numbering, type FlatNode, type Numbering } from './flatten-steps.js';
import { freezePlan } from './freeze-plan.js';
import type { ResolveLabels } from './inherit-labels.js';
import type { PipelineContext, Resolve, StepInfo, TensorType } from './pipeline-context.js';
import { q, where } from './pipeline-context.js';
import type { PipelinePlan } from './pipeline-plan.js';
import type { ProblemSink } from './pipeline-problem.js';
import { resolveNodes, type BodySpec, type CompiledBody } from './resolve-nodes.js';
import { configTensorType, syntheticConfig, syntheticTensor, type TypeLookup } from './scope-types.js';

/** A step list compiled into one plan: the pipeline itself, or a map or loop body. */
interface Scope {
  /** For a body: the outer pipeline's config (its name and `optional` outputs do not apply). */
  readonly config: ModelConfig;
  readonly steps: readonly NestedStep[];
  /** Config path of the step list. */
  readonly base: string;
  readonly body?: BodySpec;
}

interface Env {
  readonly resolve: Resolve;
  readonly sink: ProblemSink;
  readonly known: readonly string[];
  /** Labels of loaded models' outputs, which conditions such as top1() need. */
  readonly labels?: ResolveLabels;
  /** Labels of the tensors of the enclosing scopes (a body reads outer tensors). */
  readonly outerLabels?: LabelsOf;
  /** Node numbers shared by the pipeline and its bodies; the pipeline's scope starts them. */
  readonly number?: Numbering;
  /** The enclosing scope's name (`p`, `p/map#1`): a body is named below it. */
  readonly outerName?: string;
}

const errorCount = (sink: ProblemSink) => sink.problems.filter((p) => p.severity === 'error').length;

/**
 * Flatten, type, check and freeze one scope; bodies compile recursively where their construct
 * stands (they see what was produced before it). No plan when this scope or a body has an error.
 */
export function compileScope(scope: Scope, outerEnv: Env): CompiledBody {
  const number = outerEnv.number ?? numbering();
  const env = { ...outerEnv, number, ...(scope.body ? { sink: bodySink(outerEnv.sink, scope) } : {}) };
  const { sink, resolve } = env;
  const before = errorCount(sink);
  const outer = scope.body?.lookup;
  const name = scope.body ? `${outerEnv.outerName ?? scope.config.name}/${scope.body.name}` : scope.config.name;
  const label = `pipeline ${q(name)}`;
  const flat = flattenSteps(scope.steps, scope.base, sink, Boolean(scope.body), label, number);
  const start = scope.body ? new Map(scope.body.own)
    : new Map(scope.config.input.map((t) => [t.name, configTensorType(scope.config, t, true)] as const));
  const labelsOf = scopeLabels(flat.nodes, env);
  const { steps: resolved, types } = resolveNodes({ ...scope.config, name }, flat.nodes, start, outer, resolve,
    (spec) => compileScope({ config: scope.config, steps: spec.steps, base: spec.base, body: spec }, { ...env, outerLabels: labelsOf, outerName: name }), number);
  const lookup: TypeLookup = (n) => types.get(n) ?? outer?.(n);
  const conditions = compileConditions(resolved, flat.switches, lookup, () => types.keys(), sink, label, labelsOf);
  const steps = resolved.map((s) => withWhileReads(s, conditions));
  const config = scope.body ? bodyConfig(name, scope.config, scope.body, steps, types, lookup, conditions, flat.switches) : scope.config;
  const ctx = createPipelineContext(config, steps, flat.switches, conditions, sink, scope.body?.kind);
  const g = buildPipelineGraph(ctx);
  const badBatch = checkStepModels(ctx, resolve, env.known);
  checkTensorFlow(ctx, g);
  checkTensorTypes(ctx, badBatch);
  for (const cycle of findStepCycles(g)) {
    const first = cycle[0]!;
    const names = [...cycle, first].map((i) => q(ctx.steps[i]!.name)).join(' -> ');
    sink.error(ctx.steps[first]!.path, `${where(ctx)}: steps form a cycle ${names}; a pipeline must be acyclic`);
  }
  checkConstructs(ctx, lookup);
  checkPaths(ctx);
  checkDecoupledFlow(ctx, g);
  const reads = scope.body ? config.input.map((i) => i.name).filter((n) => !scope.body!.own.has(n)) : [];
  const plan: PipelinePlan | undefined = errorCount(sink) === before ? freezePlan(ctx, g) : undefined;
  return { plan, types, reads };
}

/** A tensor's labels: those of the model output that produces it here, else the enclosing scope's. */
function scopeLabels(nodes: readonly FlatNode[], env: Env): LabelsOf {
  const from = new Map<string, { model: string; version: number; key: string }>();
  for (const { kind, step } of nodes) {
    if (kind !== 'model') continue;
    for (const [key, t] of Object.entries(step.output_map ?? {})) {
      if (!from.has(t)) from.set(t, { model: step.model_name!, version: step.model_version ?? -1, key });
    }
  }
  return (t) => {
    const f = from.get(t);
    if (!f) return env.outerLabels?.(t);
    if (env.labels) return env.labels(f.model, f.version)?.get(f.key);
    // Offline (`tributary validate`, `graph`): nothing is loaded, so a label_filename on the
    // output stands for its labels; the check needs only to know that there are some.
    const file = env.resolve(f.model, f.version)?.output.find((o) => o.name === f.key)?.label_filename;
    return file ? [file] : undefined;
  };
}

/**
 * A body's problems name its synthetic config's paths (`input[i]`, `output[i]`, the step list):
 * they are reported at the construct's own keys instead, which the YAML has.
 */
function bodySink(parent: ProblemSink, scope: Scope): ProblemSink {
  const body = scope.body!;
  const construct = scope.base.replace(/\.steps$/, '');
  const rewrite = (path: string) => {
    const out = /^output\[(\d+)\]/.exec(path);
    if (out) return `${construct}.${body.outputKeys[Number(out[1])] ?? ''}`;
    if (/^input\[\d+\]/.test(path)) return construct;
    return path === 'ensemble_scheduling.step' ? scope.base : path;
  };
  return {
    problems: parent.problems,
    error: (path, message, shift) => parent.error(rewrite(path), message, shift),
    warn: (path, message) => parent.warn(rewrite(path), message),
    unknownModel: (path, message, model) => parent.unknownModel(rewrite(path), message, model),
  };
}

/** A loop's `while` may read outer tensors: they are inputs of the loop node too. */
function withWhileReads(s: StepInfo, conditions: PipelineContext['conditions']): StepInfo {
  if (s.kind !== 'loop') return s;
  const carried = new Set(Object.keys(s.loop?.carry ?? {}));
  const bound = new Set(s.inputMap.map(([n]) => n));
  const extra = (conditions.get(`${s.path}.loop.while`)?.reads ?? []).filter((r) => !carried.has(r) && !bound.has(r));
  return extra.length ? { ...s, inputMap: [...s.inputMap, ...extra.map((r): [string, string] => [r, r])] } : s;
}

/**
 * A body's own config: inputs are its item or carried tensors plus the outer tensors it reads
 * (only those known outside, so an unknown name is reported where the body reads it); outputs
 * are the tensors the map gathers or the loop carries on, typed by their body producers.
 */
function bodyConfig(name: string, outerConfig: ModelConfig, body: BodySpec, steps: readonly StepInfo[], types: ReadonlyMap<string, TensorType>,
  lookup: TypeLookup, conditions: PipelineContext['conditions'], switches: PipelineContext['switches']): ModelConfig {
  const produced = new Set(steps.flatMap((s) => s.outputMap.map(([, t]) => t)));
  const read = new Set<string>();
  const probe = { conditions, switches } as PipelineContext;
  for (const s of steps) {
    for (const [, t] of s.inputMap) read.add(t);
    for (const t of conditionReads(probe, s)) read.add(t);
  }
  for (const sw of switches) for (const c of sw.cases) for (const t of conditions.get(c.path)?.reads ?? []) read.add(t);
  const outerReads = [...read].filter((t) => !produced.has(t) && !body.own.has(t) && lookup(t));
  const inputs = [...body.own.keys(), ...outerReads].map((t) => syntheticTensor(t, lookup(t)));
  const outputs = body.outputs.map((t) => syntheticTensor(t, types.get(t)));
  return syntheticConfig(name, inputs, outputs, outerConfig);
}
