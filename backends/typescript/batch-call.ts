import type { BackendRequest, ExecuteTimings } from '../../src/backend/index.js';
import { Errors, toTributaryError, type TributaryError } from '../../src/errors.js';
import { callChainOf } from '../../src/inference/index.js';
import type { Tensor } from '../../src/tensor/index.js';
import { SLOT_CLOSED, SLOT_PAUSED, type WireResponse } from './bls/wire.js';
import { parentContext, type ParentContext } from './child-call.js';
import type { OutputCheck } from './check-outputs.js';
import type { CallHandlers, ScriptIsolate } from './script-isolate.js';
import { tensorFromWire } from './tensor-codec.js';

/** What every call of one model shares. */
export interface CallShape {
  model: string;
  decoupled: boolean;
  check: OutputCheck;
  /** Decoupled: how long a request may wait for its final response when it has no deadline. */
  responseTimeoutMs: number;
  /** Instances of this model (instance_group counts summed), for the BLS cycle check. */
  instances: number;
}

/**
 * One execute() of a batch: the handlers the isolate calls back, and the answers. A class rather
 * than closures: a warm call is a few microseconds, and a dozen closures per call (each also named
 * at run time under tsx) were a measurable part of it.
 */
export class BatchCall implements CallHandlers {
  readonly #shape: CallShape;
  readonly #iso: ScriptIsolate;
  readonly #batch: readonly BackendRequest[];
  readonly #t0: number;
  readonly #t1: number;
  /** Requests that have had their final response or error. */
  readonly #closed: Uint8Array;
  #open: number;
  #parents: (ParentContext | undefined)[] | undefined;
  #watchdog: ReturnType<typeof setTimeout> | undefined;
  /** Paused requests: what wakes each (its client took responses, it was cancelled or closed). */
  #waits: ((() => void) | undefined)[] | undefined;

  constructor(shape: CallShape, iso: ScriptIsolate, batch: readonly BackendRequest[], t0: number, t1: number) {
    this.#shape = shape;
    this.#iso = iso;
    this.#batch = batch;
    this.#t0 = t0;
    this.#t1 = t1;
    this.#closed = new Uint8Array(batch.length);
    this.#open = batch.length;
    // Only decoupled calls stay registered until every request is closed.
    if (!shape.decoupled) { this.open = undefined; this.send = undefined; this.fail = undefined; this.hold = undefined; }
    else this.#arm();
  }

  isCancelled(i: number): boolean {
    return this.#closed[i] === 1 || (this.#batch[i]?.signal.aborted ?? true);
  }

  parent(i: number): ParentContext {
    const k = i >= 0 && i < this.#batch.length ? i : this.#batch.length;
    this.#parents ??= [];
    return (this.#parents[k] ??= parentContext(this.#batch, i, this.#shape.model, this.#shape.instances));
  }

  callers(): string[] {
    const models = new Set<string>();
    for (const b of this.#batch) for (const link of callChainOf(b.request)) models.add(link.model);
    return [...models];
  }

  open?(): boolean {
    return this.#open > 0;
  }

  send?(i: number, r: WireResponse | null, final: boolean): void {
    const b = this.#batch[i];
    if (!b || this.#closed[i]) return;
    if (r?.error) { this.#close(i); b.fail(this.#iso.scriptError('execute()', r.error)); return; }
    try {
      const resp = r ? this.#fromWire(r, i, `response sender of request ${i}`) : null;
      if (final) this.#close(i);
      b.send(resp, final);
    } catch (e) { this.#close(i); b.fail(e); }
  }

  fail?(e: TributaryError): void {
    this.#failOpen(e);
  }

  /**
   * Backpressure: the request's `demand` (its front end's stream) says whether its client takes
   * responses. A paused request is woken once, by its demand, its cancellation or its closing.
   */
  hold?(i: number, wake: (open: boolean) => void): number {
    const b = this.#batch[i];
    if (!b || this.#closed[i] || b.signal.aborted) return SLOT_CLOSED;
    const demand = b.request.demand;
    if (!demand || demand.ready) return 0;
    const waits = (this.#waits ??= []);
    if (waits[i]) return SLOT_PAUSED;
    let forget: (() => void) | undefined;
    const onWake = () => {
      if (waits[i] !== onWake) return;
      waits[i] = undefined;
      forget?.();
      b.signal.removeEventListener('abort', onWake);
      wake(!this.#closed[i] && !b.signal.aborted);
    };
    waits[i] = onWake;
    b.signal.addEventListener('abort', onWake);
    forget = demand.whenReady(onWake);
    return SLOT_PAUSED;
  }

  finish(out: WireResponse[] | null): ExecuteTimings {
    const t2 = performance.now();
    const batch = this.#batch;
    if (!this.#shape.decoupled && out) {
      // The sandbox refuses an execute() result whose length is not the batch's (bls/entry.ts).
      for (let i = 0; i < batch.length; i++) {
        const r = out[i]!;
        const b = batch[i]!;
        try {
          if (r.error) b.fail(this.#iso.scriptError('execute()', r.error));
          else b.send(this.#fromWire(r, i, `execute() response ${i}`), true);
        } catch (e) { b.fail(e); }
      }
    }
    const t3 = performance.now();
    return { computeInputNs: (this.#t1 - this.#t0) * 1e6, computeInferNs: (t2 - this.#t1) * 1e6, computeOutputNs: (t3 - t2) * 1e6 };
  }

  failed(e: unknown): ExecuteTimings {
    this.#failOpen(toTributaryError(e));
    const t2 = performance.now();
    return { computeInputNs: (this.#t1 - this.#t0) * 1e6, computeInferNs: (t2 - this.#t1) * 1e6, computeOutputNs: 0 };
  }

  /**
   * Decoupled watchdog: a request still open at its deadline (or responseTimeoutMs after the call
   * started, without one) is failed and released, so a script that forgets its final flag cannot
   * hold a stream open forever. The script sees it through isCancelled().
   */
  #arm(): void {
    const now = performance.now();
    let next = Infinity;
    for (let i = 0; i < this.#batch.length; i++) {
      if (this.#closed[i]) continue;
      const limit = this.#limit(i);
      if (limit <= now) {
        const d = this.#batch[i]!.request.deadline;
        const source = d !== undefined ? "the request's timeout" : 'parameter response_timeout_ms, default 60000';
        this.#close(i);
        this.#batch[i]!.fail(Errors.scriptResponseTimeout(this.#shape.model, Math.round(limit - this.#t0), source));
      } else next = Math.min(next, limit);
    }
    if (this.#open === 0) { this.#iso.forget(this); return; }
    this.#watchdog = setTimeout(() => this.#arm(), Math.max(1, Math.ceil(next - now)));
    this.#watchdog.unref?.();
  }

  #limit(i: number): number {
    return this.#batch[i]!.request.deadline ?? this.#t0 + this.#shape.responseTimeoutMs;
  }

  #close(i: number): void {
    if (!this.#closed[i]) { this.#closed[i] = 1; this.#open--; }
    if (this.#open === 0 && this.#watchdog !== undefined) { clearTimeout(this.#watchdog); this.#watchdog = undefined; }
    this.#waits?.[i]?.();
  }

  #failOpen(e: TributaryError): void {
    for (let i = 0; i < this.#batch.length; i++) {
      if (!this.#closed[i]) { this.#close(i); this.#batch[i]!.fail(e); }
    }
  }

  #fromWire(r: WireResponse, i: number, where: string): { outputs: Tensor[]; parameters?: Record<string, string | number | boolean | bigint> } {
    const outputs: Tensor[] = new Array(r.outputs.length);
    for (let k = 0; k < outputs.length; k++) outputs[k] = tensorFromWire(this.#shape.model, r.outputs[k]!, `${where}, output ${k}`);
    const b = this.#batch[i]!;
    this.#shape.check(outputs, where, b.batchSize, b.request.outputs?.map((o) => o.name), this.#shape.decoupled);
    return r.parameters ? { outputs, parameters: r.parameters as Record<string, string | number | boolean | bigint> } : { outputs };
  }
}
