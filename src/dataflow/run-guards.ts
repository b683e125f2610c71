/**
 * The guards of one run: a node's `when:` conditions and the switch cases it sits in. A switch is
 * decided once per run, the first time a node inside it is ready (every tensor its cases read then
 * exists or is SKIPPED), and the decision is remembered and counted.
 */
import { toTributaryError } from '../errors.js';
import type { PipelinePlan, PlanGuard } from '../pipeline/index.js';
import type { Tensor } from '../tensor/index.js';
import type { RunContext } from './run-plan.js';
import { SKIPPED, type TensorScope } from './tensor-scope.js';

/** Switch decisions: not yet made, or no branch runs (no case held and no default, or the switch itself skipped). */
const UNDECIDED = -3;
const NO_BRANCH = -2;

/** What a condition reads: an absent optional input or a SKIPPED tensor reads as undefined (the condition is false). */
function reader(scope: TensorScope): (name: string) => Tensor | undefined {
  return (name) => {
    const t = scope.lookup(name);
    return t && t !== SKIPPED ? t : undefined;
  };
}

export class RunGuards {
  readonly #plan: PipelinePlan;
  readonly #ctx: RunContext;
  /** Per switch: UNDECIDED, NO_BRANCH, -1 (default) or the index of the case taken. */
  readonly #decisions: number[];

  constructor(plan: PipelinePlan, ctx: RunContext) {
    this.#plan = plan;
    this.#ctx = ctx;
    this.#decisions = new Array<number>(plan.switches.length).fill(UNDECIDED);
  }

  /** All guards hold, tried in order. A condition's run-time type error throws (a catalog error). */
  hold(guards: readonly PlanGuard[], scope: TensorScope): boolean {
    for (const g of guards) {
      const ok = g.kind === 'when'
        ? g.condition.evaluate(reader(scope), this.#ctx.request.parameters)
        : this.#decide(g.switchId, scope) === g.caseIndex;
      if (!ok) return false;
    }
    return true;
  }

  #decide(id: number, scope: TensorScope): number {
    const known = this.#decisions[id]!;
    if (known !== UNDECIDED) return known;
    const sw = this.#plan.switches[id]!;
    let d = NO_BRANCH;
    if (this.hold(sw.guards, scope)) {
      const read = reader(scope);
      const params = this.#ctx.request.parameters;
      let i: number;
      try {
        i = sw.cases.findIndex((c) => c.evaluate(read, params));
      } catch (e) {
        throw toTributaryError(e).withContext(sw.name);
      }
      d = i >= 0 ? i : sw.hasDefault ? -1 : NO_BRANCH;
    }
    this.#decisions[id] = d;
    this.#ctx.stats?.branch(id, d);
    return d;
  }
}
