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
    const wire: WireRequest[] = batch.map((b) => this.#toWire(b));
    const t1 = performance.now();
    let open = batch.length;
    const closed = new Uint8Array(batch.length);
    const close = (i: number) => { if (!closed[i]) { closed[i] = 1; open--; } };
    const parents: (ParentContext | undefined)[] = [];
    const handlers: CallHandlers = {
      isCancelled: (i) => batch[i]?.signal.aborted ?? true,
      parent: (i) => {
        const k = i >= 0 && i < batch.length ? i : batch.length;
        return (parents[k] ??= parentContext(batch, i));
      },
    };
    if (this.#decoupled) {
      handlers.open = () => open > 0;
      handlers.send = (i, r, final) => {
        if (closed[i] || !batch[i]) return;
        if (r?.error) { close(i); batch[i].fail(iso.scriptError('execute()', r.error)); return; }
        try {
          const resp = r ? this.#fromWire(r, i) : null;
          if (final) close(i);
          batch[i].send(resp, final);
        } catch (e) { close(i); batch[i].fail(e); }
      };
      handlers.fail = (e: TributaryError) => batch.forEach((b, i) => { if (!closed[i]) { close(i); b.fail(e); } });
    }
    const failAll = (e: unknown) => {
      const err = toTributaryError(e);
      batch.forEach((b, i) => { if (!closed[i]) { close(i); b.fail(err); } });
    };
    const finish = (out: WireResponse[] | null): ExecuteTimings => {
      const t2 = performance.now();
      if (!this.#decoupled && out) {
        for (let i = 0; i < batch.length; i++) {
          const r = out[i];
          try {
            if (r.error) batch[i].fail(iso.scriptError('execute()', r.error));
            else batch[i].send(this.#fromWire(r, i), true);
          } catch (e) { batch[i].fail(e); }
        }
      }
      const t3 = performance.now();
      return { computeInputNs: (t1 - t0) * 1e6, computeInferNs: (t2 - t1) * 1e6, computeOutputNs: (t3 - t2) * 1e6 };
    };
    const failed = (e: unknown): ExecuteTimings => {
      failAll(e);
      const t2 = performance.now();
      return { computeInputNs: (t1 - t0) * 1e6, computeInferNs: (t2 - t1) * 1e6, computeOutputNs: 0 };
    };
    let result;
    try {
      result = iso.execute(wire, handlers);
    } catch (e) {
      return Promise.resolve(failed(e));
    }
    // Most scripts finish inside the entry: answer without waiting for a promise.
    if (result instanceof Promise) return result.then(finish, failed);
    return Promise.resolve(finish(result));
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

  #fromWire(r: WireResponse, i: number): { outputs: Tensor[]; parameters?: Record<string, string | number | boolean | bigint> } {
    const outputs = r.outputs.map((t, k) => tensorFromWire(this.#spec.model, t, `execute() response ${i}, output ${k}`));
    return r.parameters ? { outputs, parameters: r.parameters as Record<string, string | number | boolean | bigint> } : { outputs };
  }

  async finalize(): Promise<void> {
    this.#closed = true;
    const spares = this.#spares.splice(0);
    const all = [this.#active, ...(await Promise.all(spares.map((p) => p.catch(() => undefined))))];
    this.#active = undefined;
    await Promise.all(all.map((s) => s?.finalize()));
  }
}
