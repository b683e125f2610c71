import type { BackendInstance, BackendRequest, ExecuteTimings } from '../../src/backend/index.js';
import { toTributaryError, type TributaryError } from '../../src/errors.js';
import type { Tensor } from '../../src/tensor/index.js';
import type { WireRequest, WireResponse } from './bls/wire.js';
import { parentContext, type ParentContext } from './child-call.js';
import { ScriptIsolate, type CallHandlers, type IsolateSpec } from './script-isolate.js';
import { tensorFromWire, tensorToWire } from './tensor-codec.js';

/**
 * One instance of a script model: an active isolate plus ready spares, all created and initialized
 * at load time. When the active isolate dies (time or memory limit), a spare takes over at once and
 * a new spare is built in the background, so replacement never lands on the request path.
 */
export class TypescriptInstance implements BackendInstance {
  readonly #spec: IsolateSpec;
  readonly #index: number;
  readonly #decoupled: boolean;
  readonly #outputNames: string[];
  #active: ScriptIsolate | undefined;
  readonly #spares: Promise<ScriptIsolate>[] = [];
  #closed = false;

  private constructor(spec: IsolateSpec, index: number, decoupled: boolean, outputNames: string[]) {
    this.#spec = spec;
    this.#index = index;
    this.#decoupled = decoupled;
    this.#outputNames = outputNames;
  }

  static async create(spec: IsolateSpec, index: number, decoupled: boolean, outputNames: string[]): Promise<TypescriptInstance> {
    const inst = new TypescriptInstance(spec, index, decoupled, outputNames);
    inst.#adopt(await ScriptIsolate.create(spec, index));
    for (let i = 0; i < spec.options.spares; i++) inst.#spares.push(inst.#spawn());
    await Promise.all(inst.#spares);
    return inst;
  }

  #spawn(): Promise<ScriptIsolate> {
    const p = ScriptIsolate.create(this.#spec, this.#index);
    p.catch((e: Error) => this.#spec.log.error(`model '${this.#spec.model}': could not prepare a spare isolate: ${e.message}`));
    return p;
  }

  #adopt(iso: ScriptIsolate): void {
    this.#active = iso;
    iso.onBroken = () => {
      if (this.#active !== iso) return;
      this.#active = undefined;
      if (this.#closed) return;
      const next = this.#spares.shift();
      this.#spares.push(this.#spawn());
      if (next) next.then((s) => { if (!this.#active && !this.#closed) this.#adopt(s); else void s.finalize(); }, () => {});
    };
  }

  async #isolate(): Promise<ScriptIsolate> {
    if (this.#active && !this.#active.broken) return this.#active;
    for (;;) {
      const next = this.#spares.shift() ?? this.#spawn();
      this.#spares.push(this.#spawn());
      const iso = await next.catch(() => undefined);
      if (this.#active && !this.#active.broken) { if (iso) void iso.finalize(); return this.#active; }
      if (iso) { this.#adopt(iso); return iso; }
    }
  }

  execute(batch: readonly BackendRequest[]): Promise<ExecuteTimings> {
    const iso = this.#active;
    if (!iso || iso.broken) return this.#isolate().then(() => this.execute(batch));
    const t0 = performance.now();
    const wire: WireRequest[] = new Array(batch.length);
    for (let i = 0; i < batch.length; i++) wire[i] = this.#toWire(batch[i]);
    const call = new BatchCall(this.#spec.model, iso, batch, this.#decoupled, t0, performance.now());
    let result;
    try {
      result = iso.execute(wire, call);
    } catch (e) {
      return Promise.resolve(call.failed(e));
    }
    // Most scripts finish inside the entry: answer without waiting for a promise.
    if (result instanceof Promise) return result.then((out) => call.finish(out), (e: unknown) => call.failed(e));
    return Promise.resolve(call.finish(result));
  }

  #toWire(b: BackendRequest): WireRequest {
    const r = b.request;
    const w: WireRequest = {
      id: r.id ?? '',
      inputs: r.inputs.map(tensorToWire),
      parameters: r.parameters ?? {},
      outputs: r.outputs ? r.outputs.map((o) => o.name) : this.#outputNames,
    };
    if (r.sequence) w.correlationId = r.sequence.id;
    return w;
  }

  async finalize(): Promise<void> {
    this.#closed = true;
    const spares = this.#spares.splice(0);
    const all = [this.#active, ...(await Promise.all(spares.map((p) => p.catch(() => undefined))))];
    this.#active = undefined;
    await Promise.all(all.map((s) => s?.finalize()));
  }
}

/**
 * One execute() of a batch: the handlers the isolate calls back, and the answers. A class rather
 * than closures: a warm call is a few microseconds, and a dozen closures per call (each also named
 * at run time under tsx) were a measurable part of it.
 */
class BatchCall implements CallHandlers {
  readonly #model: string;
  readonly #iso: ScriptIsolate;
  readonly #batch: readonly BackendRequest[];
  readonly #decoupled: boolean;
  readonly #t0: number;
  readonly #t1: number;
  /** Requests that have had their final response or error. */
  readonly #closed: Uint8Array;
  #open: number;
  #parents: (ParentContext | undefined)[] | undefined;

  constructor(model: string, iso: ScriptIsolate, batch: readonly BackendRequest[], decoupled: boolean, t0: number, t1: number) {
    this.#model = model;
    this.#iso = iso;
    this.#batch = batch;
    this.#decoupled = decoupled;
    this.#t0 = t0;
    this.#t1 = t1;
    this.#closed = new Uint8Array(batch.length);
    this.#open = batch.length;
    // Only decoupled calls stay registered until every request is closed.
    if (!decoupled) { this.open = undefined; this.send = undefined; this.fail = undefined; }
  }

  isCancelled(i: number): boolean {
    return this.#batch[i]?.signal.aborted ?? true;
  }

  parent(i: number): ParentContext {
    const k = i >= 0 && i < this.#batch.length ? i : this.#batch.length;
    this.#parents ??= [];
    return (this.#parents[k] ??= parentContext(this.#batch, i));
  }

  open?(): boolean {
    return this.#open > 0;
  }

  send?(i: number, r: WireResponse | null, final: boolean): void {
    const b = this.#batch[i];
    if (!b || this.#closed[i]) return;
    if (r?.error) { this.#close(i); b.fail(this.#iso.scriptError('execute()', r.error)); return; }
    try {
      const resp = r ? this.#fromWire(r, i) : null;
      if (final) this.#close(i);
      b.send(resp, final);
    } catch (e) { this.#close(i); b.fail(e); }
  }

  fail?(e: TributaryError): void {
    this.#failOpen(e);
  }

  finish(out: WireResponse[] | null): ExecuteTimings {
    const t2 = performance.now();
    const batch = this.#batch;
    if (!this.#decoupled && out) {
      for (let i = 0; i < batch.length; i++) {
        const r = out[i];
        try {
          if (r.error) batch[i].fail(this.#iso.scriptError('execute()', r.error));
          else batch[i].send(this.#fromWire(r, i), true);
        } catch (e) { batch[i].fail(e); }
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

  #close(i: number): void {
    if (!this.#closed[i]) { this.#closed[i] = 1; this.#open--; }
  }

  #failOpen(e: TributaryError): void {
    for (let i = 0; i < this.#batch.length; i++) {
      if (!this.#closed[i]) { this.#close(i); this.#batch[i].fail(e); }
    }
  }

  #fromWire(r: WireResponse, i: number): { outputs: Tensor[]; parameters?: Record<string, string | number | boolean | bigint> } {
    const outputs: Tensor[] = new Array(r.outputs.length);
    for (let k = 0; k < outputs.length; k++) outputs[k] = tensorFromWire(this.#model, r.outputs[k], `execute() response ${i}, output ${k}`);
    return r.parameters ? { outputs, parameters: r.parameters as Record<string, string | number | boolean | bigint> } : { outputs };
  }
}
