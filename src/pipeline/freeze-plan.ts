import { topologicalSort } from 'graphology-dag';
import type { ModelInput, ModelOutput } from '../config/index.js';
import { fromConfigType } from '../tensor/index.js';
import type { PipelineGraph } from './build-pipeline-graph.js';
import { LIMITS } from './check-constructs.js';
import { literalTensor } from './literal-tensor.js';
import type { GuardSource, PipelineContext, StepInfo } from './pipeline-context.js';
import type { BatchBridge, PipelinePlan, PlanGuard, PlanStep, PlanSwitch, PlanTensor } from './pipeline-plan.js';

function planTensor(t: ModelInput | ModelOutput, bridge?: BatchBridge): PlanTensor {
  return Object.freeze(bridge ? { name: t.name, bridge } : { name: t.name });
}

/** An output with its wire datatype and full dims: a map over zero items makes its empty tensors from them. */
function typed(t: PlanTensor, o: ModelOutput, batches: boolean): PlanTensor {
  const datatype = fromConfigType(o.data_type);
  if (!datatype) return t;
  return Object.freeze({ ...t, datatype, dims: Object.freeze(batches ? [-1, ...o.dims] : [...o.dims]) });
}

/**
 * Whether the (first) producer of `tensor` batches: the pipeline for its inputs and for what a
 * map, loop or return passes on (they keep the outer tensors' shapes), else the step model.
 */
function producerBatches(ctx: PipelineContext, tensor: string): boolean {
  const p = ctx.producers.get(tensor)?.[0];
  const m = !p || p.kind === 'input' || ctx.steps[p.step]!.kind !== 'model' ? ctx.config : ctx.steps[p.step]!.config;
  return (m?.max_batch_size ?? 0) > 0;
}

function bridgeFor(receiverBatches: boolean, producerBatching: boolean, dims: readonly number[]): BatchBridge | undefined {
  if (receiverBatches === producerBatching) return undefined;
  return Object.freeze({ mode: receiverBatches ? 'add' : 'strip', dims: Object.freeze([...dims]) });
}

function guard(ctx: PipelineContext, g: GuardSource): PlanGuard {
  return Object.freeze(g.kind === 'when'
    ? { kind: 'when' as const, condition: ctx.conditions.get(g.path)! }
    : { kind: 'case' as const, switchId: g.switchId, caseIndex: g.caseIndex });
}

const frozenPairs = (r: Record<string, string> | undefined) =>
  Object.freeze(Object.entries(r ?? {}).map(([name, from]) => Object.freeze({ name, from })));

/** What a map, loop or return adds to its plan node (bodies are compiled already). */
function construct(ctx: PipelineContext, s: StepInfo): Partial<PlanStep> {
  if (s.map) {
    const m = s.map;
    return { map: Object.freeze({ over: m.over!, as: m.as!, concurrency: m.concurrency ?? LIMITS.defaultConcurrency, maxItems: m.max_items ?? LIMITS.defaultMaxItems, plan: s.body!.plan! }) };
  }
  if (s.loop) {
    const l = s.loop;
    const w = ctx.conditions.get(`${s.path}.loop.while`);
    return { loop: Object.freeze({ max: l.max!, carry: frozenPairs(l.carry), ...(w ? { while: w } : {}), next: frozenPairs(l.next), plan: s.body!.plan! }) };
  }
  if (s.ret) {
    return {
      ret: Object.freeze(Object.entries(s.ret.outputs ?? {}).map(([name, v]) => Object.freeze(v.tensor !== undefined
        ? { name, tensor: v.tensor }
        : { name, literal: literalTensor(ctx.config, name, v.value ?? []) as NonNullable<PlanStep['ret']>[number]['literal'] }))),
    };
  }
  return {};
}

/** Everything the request path needs, resolved once and frozen. Call only on an error-free graph. */
export function freezePlan(ctx: PipelineContext, g: PipelineGraph): PipelinePlan {
  const order = topologicalSort(g)
    .map((n) => g.getNodeAttributes(n))
    .flatMap((a) => (a.kind === 'step' ? [a.index] : []));
  const position = new Map(order.map((index, pos) => [index, pos]));

  const consumers = new Map<string, number[]>();
  for (const [tensor, list] of ctx.consumers) {
    const steps = [...new Set(list.flatMap((c) => (c.kind === 'step' ? [position.get(c.step)!] : [])))].sort((a, b) => a - b);
    if (steps.length > 0) consumers.set(tensor, steps);
  }

  const steps: PlanStep[] = order.map((index, pos) => {
    const s = ctx.steps[index]!;
    const plain = s.kind === 'model';
    return Object.freeze({
      position: pos,
      configIndex: index,
      name: s.name,
      model: s.model,
      version: !plain || s.version === -1 ? '' : String(s.version),
      inputs: Object.freeze(s.inputMap.map(([name, tensor]) => {
        const spec = s.config?.input.find((i) => i.name === name);
        const bridge = plain && spec && bridgeFor((s.config?.max_batch_size ?? 0) > 0, producerBatches(ctx, tensor), spec.dims);
        return Object.freeze(bridge ? { name, tensor, bridge } : { name, tensor });
      })),
      // A return's outputs are in `ret` (it emits them and ends the run), not bindings.
      outputs: Object.freeze(s.kind === 'return' ? [] : s.outputMap.map(([name, tensor]) => Object.freeze({ name, tensor }))),
      requestedOutputs: Object.freeze(plain ? s.outputMap.map(([name]) => Object.freeze({ name })) : []),
      decoupled: plain && Boolean(s.config?.model_transaction_policy?.decoupled),
      kind: s.kind,
      guards: Object.freeze(s.guards.map((g) => guard(ctx, g))),
      ...construct(ctx, s),
    });
  });
  // A return counts as a producer of the outputs it gives: they are SKIPPED only once it is too.
  const producers = new Map<string, number[]>();
  for (const pos of order.keys()) {
    for (const [, t] of ctx.steps[order[pos]!]!.outputMap) producers.set(t, [...(producers.get(t) ?? []), pos]);
  }
  const switches: PlanSwitch[] = ctx.switches.map((sw) => Object.freeze({
    id: sw.id, name: sw.name, cases: Object.freeze(sw.cases.map((c) => ctx.conditions.get(c.path)!)),
    hasDefault: sw.hasDefault, guards: Object.freeze(sw.guards.map((g) => guard(ctx, g))),
  }));

  const pipelineBatches = ctx.config.max_batch_size > 0;
  return Object.freeze({
    name: ctx.name,
    decoupled: Boolean(ctx.config.model_transaction_policy?.decoupled),
    maxInflightRequests: Math.max(0, ctx.config.ensemble_scheduling?.max_inflight_requests ?? 0),
    inputs: Object.freeze(ctx.config.input.map((i) => planTensor(i))),
    outputs: Object.freeze(ctx.config.output.map((o) => typed(planTensor(o, bridgeFor(pipelineBatches, producerBatches(ctx, o.name), o.reshape?.shape ?? o.dims)), o, pipelineBatches))),
    steps: Object.freeze(steps),
    consumers: new Map([...consumers].map(([k, v]) => [k, Object.freeze(v)])) as ReadonlyMap<string, readonly number[]>,
    switches: Object.freeze(switches),
    producers: new Map([...producers].map(([k, v]) => [k, Object.freeze(v)])) as ReadonlyMap<string, readonly number[]>,
    optionalOutputs: new Set(ctx.config.output.filter((o) => o.optional).map((o) => o.name)) as ReadonlySet<string>,
  });
}
