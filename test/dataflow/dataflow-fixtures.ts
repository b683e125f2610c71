/**
 * A hand-written ModelHost whose models are plain functions returning Observables, and WorkItems
 * that record what the scheduler sends. This unit-tests the dataflow alone (no server).
 */
import { Observable } from 'rxjs';
import type { ModelHost } from '../../src/backend/index.js';
import type { InferenceRequest, InferenceResponse, Parameters } from '../../src/inference/index.js';
import { Errors, toTributaryError, type TributaryError } from '../../src/errors.js';
import type { Scheduler, WorkItem } from '../../src/scheduler/index.js';
import { createTensor, type Tensor } from '../../src/tensor/index.js';

export type ModelFn = (req: InferenceRequest) => Observable<InferenceResponse>;

export interface FnHost extends ModelHost {
  readonly calls: InferenceRequest[];
}

export function fnHost(models: Record<string, ModelFn>): FnHost {
  const calls: InferenceRequest[] = [];
  return {
    calls,
    infer(req) {
      calls.push(req);
      const fn = models[req.model];
      if (!fn) return new Observable((s) => s.error(Errors.modelNotFound(req.model)));
      return fn(req);
    },
  };
}

export const f32 = (name: string, values: number[]): Tensor => createTensor(name, 'FP32', [values.length], values);
export const values = (t: Tensor | undefined): number[] => (t ? Array.from(t.data as Float32Array) : []);

export function response(req: InferenceRequest, outputs: Tensor[], final = true): InferenceResponse {
  return { model: req.model, version: '1', outputs, final };
}

/** A model computing OUTPUT from each element of its first input (or `X`), after `delayMs` when set. */
export function mapModel(fn: (v: number) => number, o: { out?: string; delayMs?: number; onTeardown?: () => void; onStart?: () => void } = {}): ModelFn {
  return (req) => new Observable<InferenceResponse>((s) => {
    o.onStart?.();
    const input = req.inputs[0];
    const run = () => {
      s.next(response(req, [f32(o.out ?? 'Y', values(input).map(fn))]));
      s.complete();
    };
    if (o.delayMs === undefined) { run(); return () => o.onTeardown?.(); }
    const timer = setTimeout(run, o.delayMs);
    return () => { clearTimeout(timer); o.onTeardown?.(); };
  });
}

export interface RecordedItem extends WorkItem {
  readonly responses: { outputs: Tensor[]; parameters?: Parameters; final: boolean }[];
  readonly finals: number;
  error?: TributaryError;
  /** Resolves once the item is done (final sent, failed or cancelled). */
  readonly settled: Promise<void>;
  abort(): void;
}

export function makeItem(request: Omit<InferenceRequest, 'model'> & { model?: string }, o: { priority?: number; deadline?: number } = {}): RecordedItem {
  const ac = new AbortController();
  let resolve!: () => void;
  const settled = new Promise<void>((r) => { resolve = r; });
  const responses: RecordedItem['responses'] = [];
  let finals = 0;
  const item: RecordedItem = {
    request: { model: 'pipeline', ...request, signal: ac.signal },
    batchSize: 1,
    signal: ac.signal,
    priority: o.priority ?? 0,
    ...(o.deadline === undefined ? {} : { deadline: o.deadline }),
    enqueuedAt: performance.now(),
    done: false,
    batchKey: '',
    responses,
    get finals() { return finals; },
    settled,
    send(resp, final) {
      if (item.done) return;
      if (resp) responses.push({ ...resp, final });
      if (final) { finals++; (item as { done: boolean }).done = true; resolve(); }
    },
    fail(err) {
      if (item.done) return;
      item.error = toTributaryError(err);
      (item as { done: boolean }).done = true;
      resolve();
    },
    abort() {
      if (item.done) return;
      item.error = Errors.cancelled('pipeline');
      (item as { done: boolean }).done = true;
      ac.abort(item.error);
      resolve();
    },
  };
  return item;
}

/** A scheduler exposed as a host model, as the Model layer does it: the nested-pipeline case. */
export function schedulerAsModel(scheduler: Scheduler): ModelFn {
  return (req) => new Observable<InferenceResponse>((s) => {
    const ac = new AbortController();
    let done = false;
    const item: WorkItem = {
      request: { ...req, signal: ac.signal },
      batchSize: 1,
      signal: ac.signal,
      priority: req.priority ?? 0,
      ...(req.deadline === undefined ? {} : { deadline: req.deadline }),
      enqueuedAt: performance.now(),
      get done() { return done; },
      batchKey: '',
      send(resp, final) {
        if (done) return;
        if (resp || final) s.next({ model: req.model, version: '1', outputs: resp?.outputs ?? [], final });
        if (final) { done = true; s.complete(); }
      },
      fail(e) {
        if (done) return;
        done = true;
        s.error(e);
      },
    };
    scheduler.enqueue(item);
    return () => { if (!done) { done = true; ac.abort(); } };
  });
}
