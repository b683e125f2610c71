import type { PipelineGraph } from './build-pipeline-graph.js';
import { stepNode } from './build-pipeline-graph.js';
import type { PipelineContext, StepInfo } from './pipeline-context.js';
import { q, where } from './pipeline-context.js';

const isDecoupled = (s: StepInfo) => s.kind === 'model' && Boolean(s.config?.model_transaction_policy?.decoupled);
const isControlFlow = (s: StepInfo) => s.kind !== 'model' || s.guards.length > 0;

/**
 * Control flow after a decoupled step is refused at load. Each response of a decoupled step runs
 * its downstream steps again in that response's own scope, while a switch is decided and a
 * tensor's producers counted once per request, and a `return` ends the whole request: a guard,
 * switch, return, map or loop fed (through inputs or the tensors its conditions read) by a
 * decoupled step would mix responses. Control flow before the decoupled step is fine, and so is
 * per-response logic written as steps of the decoupled model's own. A map or loop body runs as one
 * call and gathers one result per item or iteration, so a decoupled step inside one is refused too.
 */
export function checkDecoupledFlow(ctx: PipelineContext, g: PipelineGraph): void {
  for (const d of ctx.steps.filter(isDecoupled)) {
    if (ctx.body) {
      ctx.sink.error(d.path, `${where(ctx, d)}: the model is decoupled (it may stream several responses), which a ${ctx.body} body cannot gather; call it outside the ${ctx.body}`);
      continue;
    }
    const seen = new Set<string>([stepNode(d.index)]);
    const queue = [stepNode(d.index)];
    for (let i = 0; i < queue.length; i++) {
      for (const next of g.outNeighbors(queue[i]!)) if (!seen.has(next)) { seen.add(next); queue.push(next); }
    }
    for (const s of ctx.steps) {
      if (s === d || !seen.has(stepNode(s.index)) || !isControlFlow(s)) continue;
      const what = s.kind === 'model' ? `is guarded (${s.branch || 'its when:'})` : `is a ${s.kind}`;
      ctx.sink.error(s.path, `${where(ctx, s)}: ${what} and follows decoupled ${d.label}, whose every response runs the steps after it again; control flow after a decoupled step is not supported: move it before that step, or into the decoupled model`);
    }
  }
}
