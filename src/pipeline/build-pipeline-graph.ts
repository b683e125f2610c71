import { DirectedGraph } from 'graphology';
import type { PipelineContext, StepInfo } from './pipeline-context.js';

type PipelineNode =
  | { kind: 'input'; name: string }
  | { kind: 'step'; index: number }
  | { kind: 'tensor'; name: string };

export type PipelineGraph = DirectedGraph<PipelineNode>;

const inputNode = (name: string): string => `input:${name}`;
export const stepNode = (index: number): string => `step:${index}`;
export const tensorNode = (name: string): string => `tensor:${name}`;

/**
 * The pipeline as a graphology DAG: pipeline input -> tensor, step -> tensor it produces,
 * tensor -> step that consumes it. Cycles, reachability and the topological order come from it.
 */
export function buildPipelineGraph(ctx: PipelineContext): PipelineGraph {
  const g: PipelineGraph = new DirectedGraph<PipelineNode>();
  const tensor = (name: string) => {
    const key = tensorNode(name);
    g.mergeNode(key, { kind: 'tensor', name });
    return key;
  };
  for (const t of ctx.config.input) {
    g.mergeNode(inputNode(t.name), { kind: 'input', name: t.name });
    g.mergeEdge(inputNode(t.name), tensor(t.name));
  }
  for (const t of ctx.config.output) tensor(t.name);
  for (const s of ctx.steps) {
    g.mergeNode(stepNode(s.index), { kind: 'step', index: s.index });
    for (const [, t] of s.inputMap) g.mergeEdge(tensor(t), stepNode(s.index));
    for (const [, t] of s.outputMap) g.mergeEdge(stepNode(s.index), tensor(t));
    // A node waits for what its guards read: its own conditions and its switches' decisions.
    for (const t of conditionReads(ctx, s)) g.mergeEdge(tensor(t), stepNode(s.index));
  }
  return g;
}

/** Tensors read by the conditions guarding a node (a switch's decision reads all its cases). */
export function conditionReads(ctx: PipelineContext, s: StepInfo): string[] {
  const out = new Set<string>();
  const add = (path: string) => { for (const t of ctx.conditions.get(path)?.reads ?? []) out.add(t); };
  for (const g of s.guards) {
    if (g.kind === 'when') add(g.path);
    else for (const c of ctx.switches[g.switchId]?.cases ?? []) add(c.path);
  }
  return [...out];
}
