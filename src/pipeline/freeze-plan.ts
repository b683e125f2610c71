import { topologicalSort } from 'graphology-dag';
import type { ModelInput, ModelOutput } from '../config/index.js';
import type { PipelineGraph } from './build-pipeline-graph.js';
import type { PipelineContext } from './pipeline-context.js';
import type { BatchBridge, PipelinePlan, PlanStep, PlanTensor } from './pipeline-plan.js';

function planTensor(t: ModelInput | ModelOutput, bridge?: BatchBridge): PlanTensor {
  return Object.freeze(bridge ? { name: t.name, bridge } : { name: t.name });
}

/** Whether the (single) producer of `tensor` batches: the pipeline for its inputs, else the step model. */
function producerBatches(ctx: PipelineContext, tensor: string): boolean {
  const p = ctx.producers.get(tensor)?.[0];
  const m = !p || p.kind === 'input' ? ctx.config : ctx.steps[p.step]!.config;
  return (m?.max_batch_size ?? 0) > 0;
}

function bridgeFor(receiverBatches: boolean, producerBatching: boolean, dims: readonly number[]): BatchBridge | undefined {
  if (receiverBatches === producerBatching) return undefined;
  return Object.freeze({ mode: receiverBatches ? 'add' : 'strip', dims: Object.freeze([...dims]) });
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
    return Object.freeze({
      position: pos,
      configIndex: index,
      name: s.name,
      model: s.model,
      version: s.version === -1 ? '' : String(s.version),
      inputs: Object.freeze(s.inputMap.map(([name, tensor]) => {
        const spec = s.config?.input.find((i) => i.name === name);
        const bridge = spec && bridgeFor((s.config?.max_batch_size ?? 0) > 0, producerBatches(ctx, tensor), spec.dims);
        return Object.freeze(bridge ? { name, tensor, bridge } : { name, tensor });
      })),
      outputs: Object.freeze(s.outputMap.map(([name, tensor]) => Object.freeze({ name, tensor }))),
      requestedOutputs: Object.freeze(s.outputMap.map(([name]) => Object.freeze({ name }))),
      decoupled: Boolean(s.config?.model_transaction_policy?.decoupled),
    });
  });

  const pipelineBatches = ctx.config.max_batch_size > 0;
  return Object.freeze({
    name: ctx.name,
    decoupled: Boolean(ctx.config.model_transaction_policy?.decoupled),
    maxInflightRequests: Math.max(0, ctx.config.ensemble_scheduling?.max_inflight_requests ?? 0),
    inputs: Object.freeze(ctx.config.input.map((i) => planTensor(i))),
    outputs: Object.freeze(ctx.config.output.map((o) => planTensor(o, bridgeFor(pipelineBatches, producerBatches(ctx, o.name), o.reshape?.shape ?? o.dims)))),
    steps: Object.freeze(steps),
    consumers: new Map([...consumers].map(([k, v]) => [k, Object.freeze(v)])) as ReadonlyMap<string, readonly number[]>,
  });
}
