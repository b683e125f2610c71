import type { PipelineGraph } from './build-pipeline-graph.js';
import { stepNode, tensorNode } from './build-pipeline-graph.js';
import type { PipelineContext, Producer, StepInfo } from './pipeline-context.js';
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
        sink.error(`output[${c.index}]`, `output ${q(tensor)} for ensemble ${q(ctx.name)} is not written; ${where(ctx)}: map some step's output to it in output_map`);
      } else {
        const s = ctx.steps[c.step]!;
        const hint = ctx.body ? `; a ${ctx.body} body reads its own tensors and those produced before the ${ctx.body}` : '';
        sink.error(`${s.path}.input_map.${c.key}`, `${where(ctx, s)}: input ${q(c.key)} reads tensor ${q(tensor)}, which is neither a pipeline input nor any step's output${hint}`);
      }
    }
  }
  for (const [tensor, producers] of ctx.producers) {
    if (producers.length < 2 || mayShare(ctx, producers)) continue;
    const names = producers.map((p) => describeProducer(ctx, p)).join(' and ');
    const last = producers[producers.length - 1]!;
    const ours = `tensor ${q(tensor)} is produced more than once (by ${names}); each tensor needs exactly one producer`;
    // Triton's words (core model_config_utils.cc) where two steps write it.
    sink.error(producerPath(ctx, last), last.kind === 'step' && producers.filter((p) => p.kind === 'step').length > 1
      ? `ensemble tensor ${q(tensor)} can appear in an output map only once for ensemble ${q(ctx.name)} step ${last.step}; ${where(ctx)}: ${ours}`
      : `${where(ctx)}: ${ours}`);
  }

  const contributing = stepsReachingOutputs(ctx, g);
  // Conditions read tensors too (graph edges without a consumer binding).
  const used = (t: string) => ctx.consumers.has(t) || (g.hasNode(tensorNode(t)) && g.outDegree(tensorNode(t)) > 0);
  ctx.config.input.forEach((t, i) => {
    if (!used(t.name)) sink.warn(`input[${i}]`, `${where(ctx)}: input ${q(t.name)} is not used by any step`);
  });
  for (const s of ctx.steps) {
    if (s.kind === 'return') continue;
    const unused = s.outputMap.filter(([, t]) => !used(t));
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

/**
 * Several producers are fine when at most one can run: each pair sits in different cases of one
 * switch, or one of them is a `return` (which ends the run with its outputs).
 */
function mayShare(ctx: PipelineContext, producers: readonly Producer[]): boolean {
  const steps = producers.map((p) => (p.kind === 'step' ? ctx.steps[p.step]! : undefined));
  if (steps.some((s) => !s)) return false;
  const plain = steps.filter((s) => s!.kind !== 'return');
  return plain.every((a, i) => plain.slice(i + 1).every((b) => exclusive(a!.guards, b!.guards)));
}

function exclusive(a: StepInfo['guards'], b: StepInfo['guards']): boolean {
  return a.some((x) => x.kind === 'case' && b.some((y) => y.kind === 'case' && y.switchId === x.switchId && y.caseIndex !== x.caseIndex));
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
