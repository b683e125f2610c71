/**
 * What the run needs beyond the plan's own maps, derived once per plan and cached: the tensors each
 * node waits for, and which nodes to look at again when a tensor appears. A guarded node waits for
 * the tensors its conditions read (and a switch case for every tensor the switch reads), so those
 * wake it too. For a plan without control flow both are exactly the step inputs and `consumers`.
 */
import type { PipelinePlan, PlanGuard, PlanStep } from '../pipeline/index.js';

export interface PlanIndex {
  /** Per position: every tensor the node needs present (or SKIPPED) before it is decided. */
  readonly deps: readonly (readonly string[])[];
  /** Tensor -> positions of the nodes to visit when it is set. */
  readonly wake: ReadonlyMap<string, readonly number[]>;
  /** Some node has a guard, or is a return, map or loop. */
  readonly controlFlow: boolean;
}

const cache = new WeakMap<PipelinePlan, PlanIndex>();

export function planIndex(plan: PipelinePlan): PlanIndex {
  let idx = cache.get(plan);
  if (!idx) {
    idx = build(plan);
    cache.set(plan, idx);
  }
  return idx;
}

/** Outer tensors a map or loop reads that its input bindings may leave out (its `over`, its carried starts). */
export function extraReads(step: PlanStep): string[] {
  if (step.map) return [step.map.over];
  if (step.loop) {
    const carried = new Set(step.loop.carry.map((c) => c.name));
    return [...step.loop.carry.map((c) => c.from), ...(step.loop.while?.reads ?? []).filter((r) => !carried.has(r))];
  }
  if (step.ret) return step.ret.flatMap((r) => (r.tensor ? [r.tensor] : []));
  return [];
}

function build(plan: PipelinePlan): PlanIndex {
  const controlFlow = plan.steps.some((s) => s.kind !== 'model' || s.guards.length > 0);
  if (!controlFlow) {
    return { deps: plan.steps.map((s) => s.inputs.map((b) => b.tensor)), wake: plan.consumers, controlFlow };
  }
  const switchReads = plan.switches.map(() => undefined as string[] | undefined);
  const readsOfSwitch = (id: number): string[] => {
    let r = switchReads[id];
    if (!r) {
      const sw = plan.switches[id]!;
      switchReads[id] = r = []; // a switch nested in itself cannot be compiled; this stops a loop anyway
      r.push(...sw.cases.flatMap((c) => c.reads), ...guardReads(sw.guards));
    }
    return r;
  };
  const guardReads = (guards: readonly PlanGuard[]): string[] =>
    guards.flatMap((g) => (g.kind === 'when' ? g.condition.reads : readsOfSwitch(g.switchId)));

  const deps = plan.steps.map((s) => [...new Set([...s.inputs.map((b) => b.tensor), ...extraReads(s), ...guardReads(s.guards)])]);
  const wake = new Map<string, number[]>();
  deps.forEach((names, pos) => {
    for (const n of names) {
      const list = wake.get(n);
      if (list) list.push(pos);
      else wake.set(n, [pos]);
    }
  });
  return { deps, wake, controlFlow };
}
