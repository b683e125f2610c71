import type { Observable } from 'rxjs';
import type { InferenceResponse } from '../inference/index.js';
import type { PlanStep } from '../pipeline/index.js';
import { renameTensor, type Tensor } from '../tensor/index.js';
import { runLoop } from './run-loop.js';
import { runMap, type RunSubPlan } from './run-map.js';
import type { RunContext } from './run-plan.js';
import { SKIPPED, type ScopeValue } from './tensor-scope.js';

/**
 * A map or loop node, seen by its run as one call whose response holds the node's outputs. Outer
 * tensors its bindings leave out (its `over`, the carried starts, what `while` reads) join its
 * inputs under their inner names. Its sub-plan's steps are counted under the node (`<node>/<step>`).
 */
export function runNested(
  step: PlanStep, inputs: Tensor[], lookup: (name: string) => ScopeValue | undefined, ctx: RunContext, run: RunSubPlan,
): Observable<InferenceResponse> {
  const add = (inner: string, outer: string) => {
    if (inputs.some((t) => t.name === inner)) return;
    const t = lookup(outer);
    if (t && t !== SKIPPED) inputs.push(renameTensor(t, inner));
  };
  const sub: RunContext = { ...ctx, stats: ctx.stats?.sub(step.position) };
  if (step.map) {
    add(step.map.as, step.map.over);
    return runMap(step, inputs, sub, ctx.stats, run);
  }
  const loop = step.loop!;
  for (const c of loop.carry) add(c.name, c.from);
  for (const r of loop.while?.reads ?? []) add(r, r);
  return runLoop(step, inputs, sub, ctx.stats, run);
}
