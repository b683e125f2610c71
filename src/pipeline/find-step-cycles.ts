import type { PipelineGraph } from './build-pipeline-graph.js';

/**
 * Every cycle's steps, as config indices in cycle order (first step repeated implicitly).
 * Tarjan's strongly connected components, then one concrete loop inside each component so the
 * message can say "a -> b -> a" rather than list a blob of nodes.
 */
export function findStepCycles(g: PipelineGraph): number[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  // Iterative Tarjan (a long chain must not overflow the call stack).
  for (const root of g.nodes()) {
    if (index.has(root)) continue;
    const work: { node: string; out: string[]; i: number }[] = [];
    const open = (node: string) => {
      index.set(node, counter);
      low.set(node, counter++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, out: g.outNeighbors(node), i: 0 });
    };
    open(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.i < frame.out.length) {
        const next = frame.out[frame.i++]!;
        if (!index.has(next)) open(next);
        else if (onStack.has(next)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(next)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const comp: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          comp.push(n);
        } while (n !== frame.node);
        if (comp.length > 1) components.push(comp);
      }
    }
  }
  return components.map((comp) => loopSteps(g, new Set(comp)));
}

/** A shortest loop from the lowest-indexed step of a component back to itself, as step indices. */
function loopSteps(g: PipelineGraph, comp: Set<string>): number[] {
  const steps = [...comp].filter((n) => g.getNodeAttributes(n).kind === 'step');
  steps.sort((a, b) => stepIndex(g, a) - stepIndex(g, b));
  // Edges only join tensors and steps, so every cycle (a component of 2+ nodes) holds a step.
  const start = steps[0]!;
  const prev = new Map<string, string>();
  const queue = [start];
  let end: string | undefined;
  for (let i = 0; i < queue.length && end === undefined; i++) {
    const from = queue[i]!;
    for (const next of g.outNeighbors(from)) {
      if (!comp.has(next)) continue;
      if (next === start) { end = from; break; }
      if (!prev.has(next)) { prev.set(next, from); queue.push(next); }
    }
  }
  const path: string[] = [];
  for (let n: string | undefined = end; n !== undefined && n !== start; n = prev.get(n)) path.unshift(n);
  path.unshift(start);
  return path.filter((n) => g.getNodeAttributes(n).kind === 'step').map((n) => stepIndex(g, n));
}

function stepIndex(g: PipelineGraph, node: string): number {
  const a = g.getNodeAttributes(node);
  return a.kind === 'step' ? a.index : -1;
}
