/**
 * A `loop:` node: carried tensors start as outer tensors; before every iteration `while` is checked
 * (absent = run `max` times), the sub-plan runs on the carried values and the outer tensors it
 * reads, and its `next` outputs become the carried values. Reaching `max` ends the loop, not the
 * request. The node's outputs are the carried tensors after the last iteration.
 */
import { Observable, type Subscription } from 'rxjs';
import { Errors } from '../errors.js';
import type { InferenceResponse } from '../inference/index.js';
import type { PlanStep } from '../pipeline/index.js';
import { renameTensor, type Tensor } from '../tensor/index.js';
import { nestedFailure, subRequest, type RunSubPlan } from './run-map.js';
import type { RunContext } from './run-plan.js';
import type { StepStats } from './step-stats.js';

export function runLoop(step: PlanStep, inputs: readonly Tensor[], ctx: RunContext, outer: StepStats | undefined, run: RunSubPlan): Observable<InferenceResponse> {
  const loop = step.loop!;
  const { pipeline } = ctx;
  return new Observable<InferenceResponse>((out) => {
    const carried = new Map<string, Tensor>();
    for (const c of loop.carry) {
      const t = inputs.find((x) => x.name === c.name);
      if (t) carried.set(c.name, t);
    }
    const others = inputs.filter((t) => !carried.has(t.name));
    const read = (name: string) => carried.get(name) ?? others.find((t) => t.name === name);
    let iteration = 0;
    let current: Subscription | undefined;
    let closed = false;
    let stepping = false;
    let again = false;

    const fail = (e: unknown) => {
      if (closed) return;
      closed = true;
      current?.unsubscribe();
      out.error(e);
    };

    const finish = () => {
      closed = true;
      out.next({ model: step.name, version: '', outputs: loop.carry.flatMap((c) => carried.get(c.name) ?? []), final: true });
      out.complete();
    };

    /** Starts the next iteration, or ends the loop. */
    const startIteration = (): void => {
      if (iteration >= loop.max) return finish();
      try {
        if (loop.while && !loop.while.evaluate(read, ctx.request.parameters)) return finish();
      } catch (e) {
        return fail(e);
      }
      if (ctx.deadline !== undefined && ctx.clock.now() >= ctx.deadline) return fail(Errors.timeout(pipeline));
      const i = iteration++;
      outer?.iteration(step.position);
      let result: Tensor[] | undefined;
      let ended = false;
      const request = subRequest(ctx, [...carried.values(), ...others]);
      const rec = request.capture?.open('iteration', `${step.name}[${i}]`, pipeline, request.inputs);
      if (rec) request.capture = rec;
      const sub: Subscription = run(loop.plan, { ...ctx, request }).subscribe({
        next: (o) => { result = o; rec?.respond(o); },
        error: (e: unknown) => {
          ended = true;
          rec?.end(e);
          fail(nestedFailure(Errors.pipelineLoopIterationFailed(pipeline, step.name, i), e));
        },
        complete: () => {
          ended = true;
          rec?.end();
          current = undefined;
          for (const nx of loop.next) {
            const t = result?.find((x) => x.name === nx.from);
            if (!t) return fail(Errors.pipelineLoopNextMissing(pipeline, step.name, i, nx.from, nx.name));
            carried.set(nx.name, renameTensor(t, nx.name));
          }
          advance();
        },
      });
      if (rec) sub.add(() => rec.cancel());
      if (!ended && !closed) current = sub;
      else if (closed) sub.unsubscribe();
    };

    // A loop, not recursion: a synchronous body completes inside startIteration, and `max` may be 10000.
    const advance = () => {
      if (stepping) { again = true; return; }
      stepping = true;
      do {
        again = false;
        if (!closed) startIteration();
      } while (again && !closed);
      stepping = false;
    };
    advance();
    return () => {
      closed = true;
      current?.unsubscribe();
    };
  });
}
