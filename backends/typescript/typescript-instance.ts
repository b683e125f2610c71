import type { BackendInstance, BackendRequest, ExecuteTimings } from '../../src/backend/index.js';
import type { WireRequest } from './bls/wire.js';
import { BatchCall, type CallShape } from './batch-call.js';
import { ScriptIsolate, type IsolateSpec } from './script-isolate.js';
import { tensorToWire } from './tensor-codec.js';

/**
 * One instance of a script model: an active isolate plus ready spares, all created and initialized
 * at load time. When the active isolate dies (time or memory limit), a spare takes over at once and
 * a new spare is built in the background, so replacement never lands on the request path.
 */
export class TypescriptInstance implements BackendInstance {
  readonly #spec: IsolateSpec;
  readonly #index: number;
  readonly #shape: CallShape;
  readonly #outputNames: string[];
  #active: ScriptIsolate | undefined;
  readonly #spares: Promise<ScriptIsolate>[] = [];
  #closed = false;
  #asking: Promise<boolean> | undefined;

  private constructor(spec: IsolateSpec, index: number, shape: CallShape, outputNames: string[]) {
    this.#spec = spec;
    this.#index = index;
    this.#shape = shape;
    this.#outputNames = outputNames;
  }

  static async create(spec: IsolateSpec, index: number, shape: CallShape, outputNames: string[]): Promise<TypescriptInstance> {
    const inst = new TypescriptInstance(spec, index, shape, outputNames);
    inst.#adopt(await ScriptIsolate.create(spec, index));
    for (let i = 0; i < spec.options.spares; i++) inst.#spares.push(inst.#spawn());
    await Promise.all(inst.#spares);
    return inst;
  }

  #spawn(): Promise<ScriptIsolate> {
    const p = ScriptIsolate.create(this.#spec, this.#index, true);
    p.catch((e: Error) => this.#spec.log.error(`model '${this.#spec.model}': could not prepare a spare isolate: ${e.message}`));
    return p;
  }

  #adopt(iso: ScriptIsolate): void {
    this.#active = iso;
    iso.spare = false;
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
    for (let i = 0; i < batch.length; i++) wire[i] = this.#toWire(batch[i]!);
    const call = new BatchCall(this.#shape, iso, batch, t0, performance.now());
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

  /**
   * The script's say in readiness: true at once when its class has no isReady(); otherwise the
   * active isolate is asked, one question at a time (a probe that arrives while one is pending
   * waits for the same answer, so a hung isReady() holds one call, not one per probe).
   */
  isReady(): boolean | Promise<boolean> {
    if (this.#closed) return false;
    const iso = this.#active;
    if (iso && !iso.broken && !iso.hasReady) return true;
    return (this.#asking ??= this.#ask().finally(() => { this.#asking = undefined; }));
  }

  async #ask(): Promise<boolean> {
    const iso = await this.#isolate();
    if (!iso.hasReady) return true;
    try {
      return await iso.ready();
    } catch (e) {
      // An isolate shut down by the unload is no failure of the script's.
      if (!this.#closed) this.#spec.onReadyError?.(e as Error);
      return false;
    }
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
