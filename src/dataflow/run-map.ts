/**
 * A `map:` node: its sub-plan once per item of `over`'s first dim, at most `concurrency` items in
 * flight, outputs gathered along dim 0 in item order. The first items start in one synchronous
 * loop, so their children reach a callee's dynamic batcher in the same tick and batch together.
 */
import { Observable, type Subscription } from 'rxjs';
import { Errors, TributaryError, toTributaryError } from '../errors.js';
import type { InferenceRequest, InferenceResponse } from '../inference/index.js';
import type { PipelinePlan, PlanStep } from '../pipeline/index.js';
import { STORAGE, concatBatch, formatShape, sliceBatch, type Tensor } from '../tensor/index.js';
import type { RunContext } from './run-plan.js';
import type { StepStats } from './step-stats.js';

export type RunSubPlan = (plan: PipelinePlan, ctx: RunContext) => Observable<Tensor[]>;

/** The request of one sub-run: the parent's identity and parameters, these inputs, every output. */
export function subRequest(ctx: RunContext, inputs: readonly Tensor[]): InferenceRequest {
  const { request } = ctx;
  const r: InferenceRequest = { model: request.model, inputs };
  if (request.id !== undefined) r.id = request.id;
  if (request.parameters !== undefined) r.parameters = request.parameters;
  if (request.sequence !== undefined) r.sequence = request.sequence;
  if (request.trace !== undefined) r.trace = request.trace;
  if (request.capture !== undefined) r.capture = request.capture;
  return r;
}

/** A sub-run's failure, named by where it happened; the kind stays the cause's (a bad input is still INVALID_ARG). */
export function nestedFailure(base: TributaryError, cause: unknown): TributaryError {
  const e = toTributaryError(cause);
  return new TributaryError(base.code, e.kind, `${base.message}: ${e.message}`, {
    cause,
    ...(e.httpStatus === undefined ? {} : { httpStatus: e.httpStatus }),
  });
}

export function runMap(step: PlanStep, inputs: readonly Tensor[], ctx: RunContext, outer: StepStats | undefined, run: RunSubPlan): Observable<InferenceResponse> {
  const map = step.map!;
  const { pipeline } = ctx;
  return new Observable<InferenceResponse>((out) => {
    const over = inputs.find((t) => t.name === map.as);
    const rest = inputs.filter((t) => t !== over);
    if (!over || over.shape.length === 0) {
      out.error(Errors.pipelineMapNotList(pipeline, step.name, map.over, over ? formatShape(over.shape) : 'absent'));
      return;
    }
    const n = over.shape[0]!;
    if (n > map.maxItems) {
      out.error(Errors.pipelineMapTooManyItems(pipeline, step.name, map.over, n, map.maxItems));
      return;
    }
    outer?.items(step.position, n);
    const results = new Array<Tensor[] | undefined>(n);
    const running = new Set<Subscription>();
    let next = 0;
    let inflight = 0;
    let done = 0;
    let closed = false;
    let pumping = false;
    let again = false;

    const fail = (e: unknown) => {
      if (closed) return;
      closed = true;
      for (const s of running) s.unsubscribe();
      running.clear();
      out.error(e);
    };

    const startItem = (i: number) => {
      inflight++;
      const item = sliceBatch(over, i, 1);
      let ended = false;
      let result: Tensor[] | undefined;
      let sub: Subscription | undefined;
      const request = subRequest(ctx, [item, ...rest]);
      const rec = request.capture?.open('item', `${step.name}[${i}]`, pipeline, request.inputs);
      if (rec) request.capture = rec;
      // A synchronous sub-run completes inside subscribe(), before `sub` is assigned; `ended` covers that.
      sub = run(map.plan, { ...ctx, request }).subscribe({
        next: (o) => { result = o; rec?.respond(o); },
        error: (e: unknown) => {
          ended = true;
          rec?.end(e);
          fail(nestedFailure(Errors.pipelineMapItemFailed(pipeline, step.name, i, n), e));
        },
        complete: () => {
          ended = true;
          rec?.end();
          if (sub) running.delete(sub);
          results[i] = result ?? [];
          inflight--;
          done++;
          pump();
        },
      });
      if (rec) sub.add(() => rec.cancel());
      if (!ended && !closed) running.add(sub);
      else if (closed) sub.unsubscribe();
    };

    // A loop, not recursion: a synchronous sub-run completes inside startItem, and a deep stack of
    // nested starts would grow with the item count.
    const pump = () => {
      if (pumping) { again = true; return; }
      pumping = true;
      do {
        again = false;
        while (!closed && next < n && inflight < map.concurrency) {
          if (ctx.deadline !== undefined && ctx.clock.now() >= ctx.deadline) return fail(Errors.timeout(pipeline));
          startItem(next++);
        }
      } while (again && !closed);
      pumping = false;
      if (!closed && done === n) {
        closed = true;
        let outputs: Tensor[];
        try {
          outputs = gather(map.plan, results as Tensor[][], pipeline, step.name);
        } catch (e) {
          out.error(e);
          return;
        }
        out.next({ model: step.name, version: '', outputs, final: true });
        out.complete();
      }
    };
    pump();
    return () => {
      closed = true;
      for (const s of running) s.unsubscribe();
      running.clear();
    };
  });
}

/** Each sub-plan output concatenated over the items along dim 0: one copy, shapes checked first. */
function gather(plan: PipelinePlan, items: readonly Tensor[][], pipeline: string, map: string): Tensor[] {
  return plan.outputs.map((o) => {
    if (items.length === 0) return emptyOutput(o.name, o.datatype, o.dims);
    const parts = items.map((outs, i) => {
      const t = outs.find((x) => x.name === o.name);
      if (!t) throw Errors.pipelineMapItemOutput(pipeline, map, i, o.name);
      return t;
    });
    const first = parts[0]!;
    parts.forEach((p, i) => {
      if (p.datatype !== first.datatype || p.shape.length !== first.shape.length || p.shape.some((d, k) => k > 0 && d !== first.shape[k])) {
        throw Errors.pipelineMapShapeMismatch(pipeline, map, i, o.name, `${p.datatype} ${formatShape(p.shape)}`, `${first.datatype} ${formatShape(first.shape)}`);
      }
    });
    return concatBatch(parts, o.name);
  });
}

/** 0 items: a tensor of dim 0 size 0, typed and shaped past dim 0 as the sub-plan declares it. */
function emptyOutput(name: string, datatype: string | undefined, dims: readonly number[] | undefined): Tensor {
  const inner = (dims ?? [1]).slice(1).map((d) => (d < 0 ? 1 : d));
  const shape = [0, ...inner];
  if (datatype === 'BYTES') return { name, datatype, shape, data: [] };
  const dt = (datatype ?? 'FP32') as keyof typeof STORAGE;
  return { name, datatype: dt, shape, data: new STORAGE[dt](0) };
}
