import type { PipelineGraph } from './build-pipeline-graph.js';
import { stepNode, tensorNode } from './build-pipeline-graph.js';
import type { PipelineContext, Producer } from './pipeline-context.js';
import { describeProducer, q, where } from './pipeline-context.js';

function producerPath(ctx: PipelineContext, p: Producer): string {
  return p.kind === 'input' ? `input[${p.index}]` : `${ctx.steps[p.step]!.path}.output_map.${p.key}`;
}

/**
 * Who makes and who reads each tensor: reads of tensors nothing produces, tensors produced twice,
 * outputs never produced (errors); unused inputs, unused step outputs and steps that contribute to
 * no pipeline output (warnings).
 */
export function checkTensorFlow(ctx: PipelineContext, g: PipelineGraph): void {
  const { sink } = ctx;
  for (const [tensor, consumers] of ctx.consumers) {
    if ((ctx.producers.get(tensor) ?? []).length > 0) continue;
    for (const c of consumers) {
      if (c.kind === 'output') {
        sink.error(`output[${c.index}]`, `${where(ctx)}: output ${q(tensor)} is never produced; map some step's output to it in output_map`);
      } else {
        const s = ctx.steps[c.step]!;
        sink.error(`${s.path}.input_map.${c.key}`, `${where(ctx, s)}: input ${q(c.key)} reads tensor ${q(tensor)}, which is neither a pipeline input nor any step's output`);
      }
    }
  }
  for (const [tensor, producers] of ctx.producers) {
    if (producers.length < 2) continue;
    const names = producers.map((p) => describeProducer(ctx, p)).join(' and ');
    sink.error(producerPath(ctx, producers[producers.length - 1]!), `${where(ctx)}: tensor ${q(tensor)} is produced more than once (by ${names}); each tensor needs exactly one producer`);
  }

  const contributing = stepsReachingOutputs(ctx, g);
  ctx.config.input.forEach((t, i) => {
    if (!ctx.consumers.has(t.name)) sink.warn(`input[${i}]`, `${where(ctx)}: input ${q(t.name)} is not used by any step`);
  });
  for (const s of ctx.steps) {
    const unused = s.outputMap.filter(([, t]) => !ctx.consumers.has(t));
    if (!contributing.has(s.index)) {
      const why = unused.length === s.outputMap.length ? 'none of its outputs is consumed' : 'its outputs feed only steps that reach no pipeline output';
      sink.warn(s.path, `${where(ctx, s)}: the step contributes to no pipeline output (${why}); remove it or map its outputs`);
      continue;
    }
    for (const [key, tensor] of unused) {
      sink.warn(`${s.path}.output_map.${key}`, `${where(ctx, s)}: output ${q(key)} (tensor ${q(tensor)}) is never used`);
    }
  }
}

/** Steps from which some pipeline output can be reached (reverse walk from the outputs). */
function stepsReachingOutputs(ctx: PipelineContext, g: PipelineGraph): Set<number> {
  const seen = new Set<string>();
  const queue = ctx.config.output.map((t) => tensorNode(t.name)).filter((n) => g.hasNode(n));
  for (const n of queue) seen.add(n);
  for (let i = 0; i < queue.length; i++) {
    for (const prev of g.inNeighbors(queue[i])) {
      if (!seen.has(prev)) { seen.add(prev); queue.push(prev); }
    }
  }
  return new Set(ctx.steps.filter((s) => seen.has(stepNode(s.index))).map((s) => s.index));
}
