import type { Subscription } from 'rxjs';
import type { BackendRequest, ModelHost } from '../../src/backend/index.js';
import { CancelSource, callChainOf, setCallChain, type CallLink, type CancelSignal, type InferenceRequest, type CaptureTap, type InferenceResponse, type Parameters, type TraceSpawner } from '../../src/inference/index.js';
import { Errors, toTributaryError, type TributaryError } from '../../src/errors.js';
import type { WireChildRequest } from './bls/wire.js';
import { tensorFromWire } from './tensor-codec.js';

/** What a BLS child inherits from the request(s) it works for. */
export interface ParentContext {
  deadline?: number;
  priority?: number;
  /** The caller's trace, when it is traced: the child's trace is opened under it. */
  trace?: TraceSpawner;
  /** The caller's capture record, when it is captured: each child call is recorded under it. */
  capture?: CaptureTap;
  /** The caller's chain, the caller included. */
  chain: readonly CallLink[];
  /** The caller's headers an experiment routes on (sticky), so a child call stays on the caller's variant. */
  routingHeaders?: Readonly<Record<string, string>>;
  signal: CancelSignal;
  /** Run `f` when the parent is aborted; returns the function that stops watching. */
  watch(f: () => void): () => void;
}

/** One abort listener per parent, however many children: many children must not pile up listeners. */
function context(signal: CancelSignal, deadline: number | undefined, priority: number | undefined, chain: readonly CallLink[], trace?: TraceSpawner, capture?: CaptureTap): ParentContext {
  const fns = new Set<() => void>();
  let hooked = false;
  return {
    signal,
    chain,
    ...(deadline !== undefined ? { deadline } : {}),
    ...(priority ? { priority } : {}),
    ...(trace ? { trace } : {}),
    ...(capture ? { capture } : {}),
    watch(f) {
      if (!hooked) {
        hooked = true;
        signal.addEventListener('abort', () => { for (const g of [...fns]) g(); }, { once: true });
      }
      fns.add(f);
      return () => fns.delete(f);
    },
  };
}

/**
 * The parent context of a batch: one request's own, or for the whole batch the latest deadline, the
 * highest priority and a signal that aborts only once every request of the batch is aborted (the
 * child is useless only when nobody waits for it).
 */
export function parentContext(batch: readonly BackendRequest[], index: number, model: string, instances: number): ParentContext {
  const self: CallLink = { model, slots: instances, bound: 'instance_group count' };
  const one = (b: BackendRequest) => routed(context(b.signal, b.request.deadline, b.request.priority, [...callChainOf(b.request), self], b.request.trace, b.request.capture), b.request.routingHeaders);
  if (index >= 0 && index < batch.length) return one(batch[index]!);
  if (batch.length === 1) return one(batch[0]!);
  const ctl = new CancelSource();
  let left = batch.length;
  for (const b of batch) {
    const onAbort = () => { if (--left === 0) ctl.abort(b.signal.reason); };
    if (b.signal.aborted) onAbort(); else b.signal.addEventListener('abort', onAbort, { once: true });
  }
  const deadlines = batch.map((b) => b.request.deadline);
  const prios = batch.map((b) => b.request.priority ?? 0).filter((p) => p > 0);
  const longest = batch.map((b) => callChainOf(b.request)).reduce((a, c) => (c.length > a.length ? c : a));
  return routed(context(
    ctl.signal,
    deadlines.every((d) => d !== undefined) ? Math.max(...(deadlines as number[])) : undefined,
    prios.length ? Math.min(...prios) : undefined,
    [...longest, self],
    // A call made for the whole batch is traced under the first traced request of it.
    batch.find((b) => b.request.trace)?.request.trace,
    batch.find((b) => b.request.capture)?.request.capture,
  ), batch.find((b) => b.request.routingHeaders)?.request.routingHeaders);
}

function routed(parent: ParentContext, headers: Readonly<Record<string, string>> | undefined): ParentContext {
  if (headers !== undefined) parent.routingHeaders = headers;
  return parent;
}

export function childRequest(caller: string, w: WireChildRequest, parent: ParentContext): InferenceRequest {
  if (!w || typeof w.model !== 'string') throw Errors.blsRequestNoModel(caller);
  const inputs = (w.inputs ?? []).map((t, i) => tensorFromWire(caller, t, `BLS request to '${w.model}', input ${i}`));
  const req: InferenceRequest = { model: w.model, inputs };
  if (w.version !== undefined && w.version !== '') req.version = w.version;
  if (w.outputs) req.outputs = w.outputs.map((name) => ({ name }));
  if (w.parameters) req.parameters = w.parameters as Parameters;
  const priority = w.priority ?? parent.priority;
  if (priority !== undefined) req.priority = priority;
  if (w.timeout !== undefined) req.timeoutUs = w.timeout;
  if (parent.deadline !== undefined) req.deadline = parent.deadline;
  if (parent.trace !== undefined) req.trace = parent.trace;
  if (parent.routingHeaders !== undefined) req.routingHeaders = parent.routingHeaders;
  if (w.correlationId !== undefined) {
    req.sequence = { id: w.correlationId, start: w.sequenceStart === true, end: w.sequenceEnd === true };
  }
  // The callee's model refuses the call if it closes a cycle (checkCallCycle).
  setCallChain(req, parent.chain);
  return req;
}

export interface ChildObserver {
  next(r: InferenceResponse): void;
  error(e: TributaryError): void;
  complete(): void;
}

/**
 * Start a child on the host. It gets its own signal, aborted with the parent's (through the parent's
 * one listener); aborting unsubscribes (cancels) the child and reports a cancellation to the script.
 * Returns the function that cancels it.
 */
export function startChild(host: ModelHost, req: InferenceRequest, parent: ParentContext, obs: ChildObserver): () => void {
  let sub: Subscription | undefined;
  let ended = false;
  const started = performance.now();
  // The chain ends with the calling script's model.
  const rec = parent.capture?.open('call', req.model, req.model, req.inputs);
  if (rec) req.capture = rec;
  const record = (success: boolean) => host.childCall?.(parent.chain.at(-1)?.model ?? '', req.model, (performance.now() - started) * 1e6, success);
  // No signal of its own: unsubscribing cancels the child (the host contract).
  const onAbort = () => {
    if (ended) return;
    ended = true;
    sub?.unsubscribe();
    rec?.cancel();
    record(false);
    obs.error(Errors.cancelled(req.model));
  };
  if (parent.signal.aborted) { queueMicrotask(onAbort); return () => { ended = true; }; }
  const unwatch = parent.watch(onAbort);
  const end = (success: boolean) => { ended = true; unwatch(); record(success); };
  try {
    sub = host.infer(req).subscribe({
      next: (r) => { if (!ended) { rec?.respond(r.outputs, r.version); obs.next(r); } },
      error: (e: unknown) => { if (!ended) { rec?.end(e); end(false); obs.error(toTributaryError(e)); } },
      complete: () => { if (!ended) { rec?.end(); end(true); obs.complete(); } },
    });
  } catch (e) {
    if (!ended) { rec?.end(e); end(false); obs.error(toTributaryError(e)); }
  }
  if (ended) sub?.unsubscribe();
  return () => { if (!ended) { rec?.cancel(); end(false); sub?.unsubscribe(); } };
}
