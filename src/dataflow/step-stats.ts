import type { StatDuration } from '../scheduler/index.js';
import type { PipelinePlan } from '../pipeline/index.js';

export interface StepStat { step: string; model: string; version: string; count: number; ns: number; fail: number }

/**
 * Per-step counters and the pipeline's wall time, kept apart: parallel branches add their compute
 * to the steps, but a request's wall time counts once, so branches do not look sequential.
 */
export class StepStats {
  readonly #steps: StepStat[];
  readonly #byPosition: StepStat[];
  readonly #wall: StatDuration = { count: 0, ns: 0 };

  constructor(plan: PipelinePlan) {
    this.#byPosition = plan.steps.map((s) => ({ step: s.name, model: s.model, version: s.version, count: 0, ns: 0, fail: 0 }));
    // Reported in config order, the order users wrote the steps in.
    this.#steps = [...plan.steps].sort((a, b) => a.configIndex - b.configIndex).map((s) => this.#byPosition[s.position]!);
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

  wall(ns: number): void {
    this.#wall.count++;
    this.#wall.ns += Math.round(ns);
  }

  steps(): StepStat[] {
    return this.#steps.map((s) => ({ ...s }));
  }

  wallTime(): StatDuration {
    return { ...this.#wall };
  }
}
