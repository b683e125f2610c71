import type { Subscription } from 'rxjs';
import type { PlanStep } from '../pipeline/index.js';
import type { Clock } from '../scheduler/index.js';
import type { StepStats } from './step-stats.js';

/**
 * One child call in flight. Kept so a `return` that ends the run can still count it: the step
 * whose response triggered the return has done its work (its `complete` never arrives once the
 * run unsubscribes), the others are cancelled mid-call.
 */
export interface ChildCall {
  readonly step: PlanStep;
  readonly started: number;
  version: string | undefined;
  /** A response arrived: a single-response step's work is done. */
  responded: boolean;
  /** Counted already (completed, failed, or settled by a return). */
  settled: boolean;
  sub: Subscription | undefined;
}

/** A `return` ends the run: each call still in flight is counted done (it answered) or cancelled. */
export function settleOnReturn(calls: Iterable<ChildCall>, stats: StepStats | undefined, clock: Clock): void {
  for (const c of calls) {
    if (c.settled) continue;
    c.settled = true;
    if (c.responded && !c.step.decoupled) stats?.success(c.step.position, (clock.now() - c.started) * 1e6, c.version);
    else stats?.cancelled(c.step.position);
  }
}
