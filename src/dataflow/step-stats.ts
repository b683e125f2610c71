import type { StatDuration } from '../scheduler/index.js';
import type { PipelinePlan } from '../pipeline/index.js';

/**
 * One node of a pipeline. `skipped` appears once the node was skipped (a false guard, a case not
 * taken, a SKIPPED input, or never reached because a `return` ended the run first); `cancelled`
 * once a `return` ended the run while the node's call was still running; `items` on a map (items
 * run, summed over its runs); `iterations` on a loop. Nodes inside a map or loop follow it, named
 * `<map>/<step>`.
 */
export interface StepStat {
  step: string; model: string; version: string; count: number; ns: number; fail: number;
  skipped?: number; cancelled?: number; items?: number; iterations?: number;
}

/** One branch of a switch: how many runs took it, and how many decided the switch otherwise. */
export interface BranchStat { switch: string; case: string; condition: string; taken: number; skipped: number }

interface SwitchCounts { name: string; labels: { case: string; condition: string }[]; taken: number[]; decided: number }

/**
 * Per-step counters and the pipeline's wall time, kept apart: parallel branches add their compute
 * to the steps, but a request's wall time counts once, so branches do not look sequential.
 */
export class StepStats {
  /** Positions in config order, the order users wrote the steps in. */
  readonly #order: number[];
  readonly #byPosition: StepStat[];
  readonly #subs: (StepStats | undefined)[];
  readonly #switches: SwitchCounts[];
  readonly #wall: StatDuration = { count: 0, ns: 0 };

  constructor(plan: PipelinePlan, prefix = '') {
    this.#byPosition = plan.steps.map((s) => {
      const st: StepStat = { step: prefix + s.name, model: s.model, version: s.version, count: 0, ns: 0, fail: 0 };
      if (s.kind === 'map') st.items = 0;
      if (s.kind === 'loop') st.iterations = 0;
      return st;
    });
    this.#subs = plan.steps.map((s) => {
      const sub = s.map?.plan ?? s.loop?.plan;
      return sub ? new StepStats(sub, `${prefix}${s.name}/`) : undefined;
    });
    this.#order = [...plan.steps].sort((a, b) => a.configIndex - b.configIndex).map((s) => s.position);
    this.#switches = plan.switches.map((sw) => ({
      name: prefix + sw.name,
      labels: [
        ...sw.cases.map((c, i) => ({ case: String(i), condition: c.source })),
        ...(sw.hasDefault ? [{ case: 'default', condition: '' }] : []),
      ],
      taken: new Array<number>(sw.cases.length + (sw.hasDefault ? 1 : 0)).fill(0),
      decided: 0,
    }));
  }

  // `position` is a PlanStep's, its index in plan.steps, which #byPosition mirrors.
  success(position: number, ns: number, version?: string): void {
    const s = this.#byPosition[position]!;
    s.count++;
    s.ns += Math.round(ns);
    if (version) s.version = version;
  }

  failure(position: number): void {
    this.#byPosition[position]!.fail++;
  }

  skipped(position: number): void {
    const s = this.#byPosition[position]!;
    s.skipped = (s.skipped ?? 0) + 1;
  }

  cancelled(position: number): void {
    const s = this.#byPosition[position]!;
    s.cancelled = (s.cancelled ?? 0) + 1;
  }

  items(position: number, n: number): void {
    const s = this.#byPosition[position]!;
    s.items = (s.items ?? 0) + n;
  }

  iteration(position: number): void {
    const s = this.#byPosition[position]!;
    s.iterations = (s.iterations ?? 0) + 1;
  }

  /** A switch decided: `caseIndex` -1 = default, -2 = no branch runs. */
  branch(switchId: number, caseIndex: number): void {
    const sw = this.#switches[switchId]!;
    sw.decided++;
    // -1 is decided only when the switch has a default, which is the last slot.
    if (caseIndex >= 0) sw.taken[caseIndex]!++;
    else if (caseIndex === -1) sw.taken[sw.taken.length - 1]!++;
  }

  /** The counters of the plan a map or loop at `position` runs. */
  sub(position: number): StepStats | undefined {
    return this.#subs[position];
  }

  wall(ns: number): void {
    this.#wall.count++;
    this.#wall.ns += Math.round(ns);
  }

  steps(): StepStat[] {
    return this.#order.flatMap((pos) => {
      const own = { ...this.#byPosition[pos]! };
      const sub = this.#subs[pos];
      return sub ? [own, ...sub.steps()] : [own];
    });
  }

  branches(): BranchStat[] {
    const own = this.#switches.flatMap((sw) => sw.labels.map((l, i) => ({
      switch: sw.name, case: l.case, condition: l.condition, taken: sw.taken[i]!, skipped: sw.decided - sw.taken[i]!,
    })));
    return [...own, ...this.#subs.flatMap((s) => (s ? s.branches() : []))];
  }

  wallTime(): StatDuration {
    return { ...this.#wall };
  }
}
