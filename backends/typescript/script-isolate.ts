/**
 * One V8 isolate running one model script. Longer than most files because the host half of the
 * channel (calls in, callbacks out, child calls, limits) only makes sense read together.
 *
 * Calls enter the isolate synchronously (applySync, about 1 µs) and isolated-vm drains the
 * isolate's microtask queue before returning, so a script that does not await the host finishes
 * inside one entry. Results come back through synchronous callbacks. Re-entry is never nested:
 * anything that would enter while the isolate is running (a callee that answers synchronously) is
 * queued and runs right after the current entry.
 *
 * Messages travel through the isolate's scratch buffer (bls/scratch.ts) when they fit, so an entry
 * passes only numbers; a call that completes inside the entry leaves its responses there, read
 * right after applySync returns. Larger or unusual messages are structured-cloned as before.
 */
import { CancelSource } from '../../src/backend/index.js';
import ivm from 'isolated-vm';
import type { InferenceResponse, ModelHost } from '../../src/backend/index.js';
import { Errors, TributaryError, type ErrorKind } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import {
  DELIVER_COMPLETE, DELIVER_ERROR, DELIVER_RESPONSE,
  type WireChildRequest, type WireError, type WireInitArgs, type WireRequest, type WireResponse,
} from './bls/wire.js';
import { IN_SCRATCH, SCRATCH_BYTES, Scratch } from './bls/scratch.js';
import type { ScriptBundle } from './bundle-script.js';
import { childRequest, startChild, type ParentContext } from './child-call.js';
import type { SandboxOptions } from './sandbox-options.js';
import type { StackMapper } from './stack-mapper.js';
import { cloneableRequest, cloneableResponse, tensorToWire } from './tensor-codec.js';

export interface IsolateSpec {
  model: string;
  bundle: ScriptBundle;
  mapStack: StackMapper;
  options: SandboxOptions;
  init: Omit<WireInitArgs, 'instanceIndex'>;
  host: ModelHost;
  log: Logger;
}

/** What the instance tells the isolate about the requests of one call. */
export interface CallHandlers {
  /** Decoupled responses (and their final flags). */
  send?(index: number, response: WireResponse | null, final: boolean): void;
  /** Decoupled: true while some request of the call has not received its final response. */
  open?(): boolean;
  /** Fail the call's unfinished requests after execute() has returned (decoupled). */
  fail?(error: TributaryError): void;
  isCancelled(index: number): boolean;
  parent(index: number): ParentContext;
}

/** One call into the script (initialize, execute, finalize) until it settles. */
class LiveCall {
  readonly id = nextCallId++;
  readonly what: string;
  readonly handlers: CallHandlers;
  spentMs = 0;
  settled = false;
  #done = false;
  #value: WireResponse[] | null = null;
  #error: TributaryError | undefined;
  #res: ((r: WireResponse[] | null) => void) | undefined;
  #rej: ((e: TributaryError) => void) | undefined;

  constructor(what: string, handlers: CallHandlers) {
    this.what = what;
    this.handlers = handlers;
  }

  resolve(r: WireResponse[] | null): void {
    if (this.#res) this.#res(r); else { this.#done = true; this.#value = r; }
  }

  reject(e: TributaryError): void {
    if (this.#rej) this.#rej(e); else { this.#done = true; this.#error = e; }
  }

  /** Synchronous when the call settled inside its entry (the common case); a promise otherwise. */
  outcome(): CallResult {
    if (this.#done) {
      if (this.#error) throw this.#error;
      return this.#value;
    }
    return new Promise((a, b) => { this.#res = a; this.#rej = b; });
  }
}

const KINDS = new Set<string>(['UNKNOWN', 'INTERNAL', 'NOT_FOUND', 'INVALID_ARG', 'UNAVAILABLE', 'UNSUPPORTED', 'ALREADY_EXISTS', 'CANCELLED']);
const TIMED_OUT = 'Script execution timed out.';
const NO_PARENT: ParentContext = { signal: new CancelSource(), watch: () => () => {} };

let nextCallId = 1;

export type CallResult = WireResponse[] | null | Promise<WireResponse[] | null>;

export class ScriptIsolate {
  readonly #spec: IsolateSpec;
  readonly #isolate: ivm.Isolate;
  readonly #context: ivm.Context;
  readonly #scratchBuffer = new SharedArrayBuffer(SCRATCH_BYTES);
  readonly #scratch = new Scratch(this.#scratchBuffer);
  #refs!: { init: ivm.Reference; execute: ivm.Reference; deliver: ivm.Reference; finalize: ivm.Reference };
  readonly #live = new Map<number, LiveCall>();
  readonly #children = new Map<number, { callId: number; cancel: () => void }>();
  readonly #queue: (() => void)[] = [];
  #depth = 0;
  #broken: TributaryError | undefined;
  /** Called once when the isolate dies (limit hit, or disposed); the pool replaces it. */
  onBroken: ((e: TributaryError) => void) | undefined;

  private constructor(spec: IsolateSpec) {
    this.#spec = spec;
    this.#isolate = new ivm.Isolate({ memoryLimit: spec.options.memoryLimitMb });
    this.#context = this.#isolate.createContextSync();
  }

  /** Create, run the bundle and the script's initialize(). Load time only. */
  static async create(spec: IsolateSpec, instanceIndex: number): Promise<ScriptIsolate> {
    const s = new ScriptIsolate(spec);
    try {
      s.#installHost();
      const script = await s.#isolate.compileScript(spec.bundle.code, { filename: spec.bundle.filename });
      let err: unknown;
      s.#enter(undefined, (timeout) => {
        try { script.runSync(s.#context, { timeout }); } catch (e) { err = e; }
      });
      if (s.#broken) throw s.#broken;
      if (err) throw s.#thrown('loading the script', err);
      const g = s.#context.global;
      const ref = (n: string) => g.getSync(n, { reference: true }) as ivm.Reference;
      s.#refs = { init: ref('__trb_init'), execute: ref('__trb_execute'), deliver: ref('__trb_deliver'), finalize: ref('__trb_finalize') };
      const init = { ...spec.init, instanceIndex };
      await s.#run('initialize()', { isCancelled: () => false, parent: () => NO_PARENT }, (id, timeout) => {
        s.#refs.init.applySync(undefined, [id, init], { arguments: { copy: true }, timeout });
      });
      return s;
    } catch (e) {
      s.dispose();
      throw e instanceof TributaryError ? e : Errors.modelLoadFailed(spec.model, (e as Error).message);
    }
  }

  get broken(): boolean {
    return this.#broken !== undefined;
  }

  /** Throws (synchronously) or rejects with the call's error. */
  execute(requests: readonly WireRequest[], handlers: CallHandlers): CallResult {
    return this.#run('execute()', handlers, (id, timeout) => {
      if (this.#scratch.writeRequests(requests)) this.#refs.execute.applySync(undefined, [id, IN_SCRATCH], { timeout });
      else this.#refs.execute.applySync(undefined, [id, requests.map(cloneableRequest)], { arguments: { copy: true }, timeout });
    });
  }

  async finalize(): Promise<void> {
    if (!this.#broken) {
      try {
        await this.#run('finalize()', { isCancelled: () => true, parent: () => NO_PARENT }, (id, timeout) => {
          this.#refs.finalize.applySync(undefined, [id], { timeout });
        });
      } catch (e) {
        this.#spec.log.warn(`model '${this.#spec.model}': ${(e as Error).message}`);
      }
    }
    this.dispose();
  }

  dispose(): void {
    this.#break(Errors.unavailable(`model '${this.#spec.model}': the script's isolate was shut down`), false);
  }

  /**
   * Enter the isolate for one call. A script that does not await the host has finished when the
   * entry returns, so the result comes back synchronously (no promise, no extra microtask hops);
   * otherwise a promise settles when the script calls back.
   */
  #run(what: string, handlers: CallHandlers, enter: (callId: number, timeoutMs: number) => void): CallResult {
    if (this.#broken) throw this.#broken;
    const call = new LiveCall(what, handlers);
    this.#live.set(call.id, call);
    this.#enter(call, (timeout) => enter(call.id, timeout));
    return call.outcome();
  }

  /** Run `f` inside the isolate with the calling call's remaining CPU budget. */
  #enter(call: LiveCall | undefined, f: (timeoutMs: number) => void): void {
    if (this.#broken) return;
    if (this.#depth > 0) {
      this.#queue.push(() => this.#enter(call, f));
      return;
    }
    const timeout = Math.max(1, Math.ceil(this.#spec.options.timeoutMs - (call?.spentMs ?? 0)));
    this.#depth++;
    const t0 = performance.now();
    try {
      f(timeout);
      if (this.#scratch.held) this.#takeCompletion();
    } catch (e) {
      this.#entryFailed(call, e);
    } finally {
      this.#depth--;
      if (call) call.spentMs += performance.now() - t0;
    }
    while (this.#depth === 0 && this.#queue.length > 0 && !this.#broken) this.#queue.shift()!();
  }

  #entryFailed(call: LiveCall | undefined, e: unknown): void {
    const where = call ? ` in ${call.what}` : ' while loading';
    const o = this.#spec.options;
    if (this.#isolate.isDisposed) {
      this.#break(Errors.scriptLimit(this.#spec.model, `script exceeded its memory limit of ${o.memoryLimitMb} MB (parameter memory_limit_mb)${where}; its isolate was replaced`));
    } else if (e instanceof Error && e.message === TIMED_OUT) {
      this.#break(Errors.scriptLimit(this.#spec.model, `script ran past its time limit of ${o.timeoutMs} ms (parameter timeout_ms)${where}; its isolate was replaced`));
    } else if (call) {
      this.#settle(call, null, this.#thrown(call.what, e));
    } else {
      throw e;
    }
  }

  #settle(call: LiveCall, result: WireResponse[] | null, error: TributaryError | undefined): void {
    if (call.settled) return;
    call.settled = true;
    if (!call.handlers.open?.()) this.#live.delete(call.id);
    if (error) call.reject(error); else call.resolve(result);
  }

  /** A call that completed inside the entry just made left its responses in the scratch buffer. */
  #takeCompletion(): void {
    const { callId, responses } = this.#scratch.takeCompletion();
    const call = this.#live.get(callId);
    if (call) this.#settle(call, responses, undefined);
  }

  #break(error: TributaryError, log = true): void {
    if (this.#broken) return;
    this.#broken = error;
    if (log) this.#spec.log.error(error.message);
    for (const c of this.#children.values()) c.cancel();
    this.#children.clear();
    for (const call of this.#live.values()) {
      if (call.settled) call.handlers.fail?.(error);
      else { call.settled = true; call.reject(error); }
    }
    this.#live.clear();
    this.#queue.length = 0;
    if (!this.#isolate.isDisposed) this.#isolate.dispose();
    this.onBroken?.(error);
  }

  /** A script error as the client sees it: kind and code kept from a ModelError, position from the source map. */
  scriptError(what: string, e: WireError): TributaryError {
    const mapped = this.#spec.mapStack(e.stack);
    if (mapped.stack) this.#spec.log.verbose(1, `model '${this.#spec.model}': ${mapped.stack}`);
    const label = e.name && e.name !== 'Error' && e.name !== 'ModelError' ? `${e.name}: ` : '';
    const at = mapped.location ? ` (at ${mapped.location})` : '';
    const message = `model '${this.#spec.model}': ${what} failed: ${label}${e.message}${at}`;
    const kind = (e.kind && KINDS.has(e.kind) ? e.kind : 'INTERNAL') as ErrorKind;
    if (e.code || e.kind) return new TributaryError(e.code ?? Errors.scriptError.code, kind, message);
    return new TributaryError(Errors.scriptError.code, 'INTERNAL', message);
  }

  #thrown(what: string, e: unknown): TributaryError {
    const err = e as Error;
    return this.scriptError(what, { message: err?.message ?? String(e), name: err?.name, stack: err?.stack });
  }

  #deliver(callId: number, childId: number, kind: number, payload: WireResponse | WireError | null, final: boolean): void {
    if (kind !== DELIVER_RESPONSE || final) this.#children.delete(childId);
    const call = this.#live.get(callId);
    this.#enter(call, (timeout) => {
      if (kind === DELIVER_RESPONSE && this.#scratch.writeResponse(payload as WireResponse)) {
        this.#refs.deliver.applySync(undefined, [callId, childId, kind, IN_SCRATCH, final], { timeout });
      } else {
        const p = kind === DELIVER_RESPONSE ? cloneableResponse(payload as WireResponse) : payload;
        this.#refs.deliver.applySync(undefined, [callId, childId, kind, p, final], { arguments: { copy: true }, timeout });
      }
    });
  }

  #installHost(): void {
    const g = this.#context.global;
    const log = this.#spec.log;
    const model = this.#spec.model;
    const cb = (name: string, f: (...a: never[]) => unknown) => g.setSync(`__trb_h_${name}`, new ivm.Callback(f as (...a: unknown[]) => unknown));
    cb('done', (callId: number, responses: WireResponse[] | null, error: WireError | null) => {
      const call = this.#live.get(callId);
      if (call) this.#settle(call, responses, error ? this.scriptError(call.what, error) : undefined);
    });
    cb('send', (callId: number, index: number, response: WireResponse | null | number, final: boolean) => {
      const call = this.#live.get(callId);
      if (!call?.handlers.send) return;
      call.handlers.send(index, response === IN_SCRATCH ? this.#scratch.readResponse() : response as WireResponse | null, final);
      if (call.settled && !call.handlers.open?.()) this.#live.delete(callId);
    });
    cb('isCancelled', (callId: number, index: number) => this.#live.get(callId)?.handlers.isCancelled(index) ?? true);
    cb('infer', (callId: number, childId: number, wire: WireChildRequest | number) => {
      this.#startChild(callId, childId, wire === IN_SCRATCH ? this.#scratch.readChildRequest() : wire as WireChildRequest);
    });
    cb('cancel', (childId: number) => {
      const c = this.#children.get(childId);
      this.#children.delete(childId);
      c?.cancel();
    });
    cb('log', (level: number, msg: string) => {
      const line = `model '${model}': ${msg}`;
      if (level === 1) log.warn(line); else if (level === 2) log.error(line); else if (level === 3) log.verbose(1, line); else log.info(line);
    });
    g.setSync('__trb_h_scratch', new ivm.ExternalCopy(this.#scratchBuffer).copyInto({ release: true }));
    this.#isolate.compileScriptSync(
      "globalThis.__trb_host = { scratch: __trb_h_scratch, done: __trb_h_done, send: __trb_h_send, isCancelled: __trb_h_isCancelled, infer: __trb_h_infer, cancel: __trb_h_cancel, log: __trb_h_log };\n" +
      "for (const k of ['scratch', 'done', 'send', 'isCancelled', 'infer', 'cancel', 'log']) delete globalThis['__trb_h_' + k];",
    ).runSync(this.#context);
  }

  #startChild(callId: number, childId: number, wire: WireChildRequest): void {
    const call = this.#live.get(callId);
    if (!call) throw new Error(`BLS call to '${wire?.model}' made after execute() finished; await BLS calls inside execute()`);
    const parent = call.handlers.parent(wire.parent);
    const req = childRequest(this.#spec.model, wire, parent);
    const toWire = (r: InferenceResponse): WireResponse => (r.parameters ? { outputs: r.outputs.map(tensorToWire), parameters: r.parameters } : { outputs: r.outputs.map(tensorToWire) });
    const entry = { callId, cancel: () => {} };
    this.#children.set(childId, entry);
    let finalSeen = false;
    entry.cancel = startChild(this.#spec.host, req, parent, {
      next: (r) => {
        finalSeen ||= r.final;
        this.#deliver(callId, childId, DELIVER_RESPONSE, toWire(r), r.final);
      },
      error: (e) => this.#deliver(callId, childId, DELIVER_ERROR, { message: e.message, kind: e.kind, code: e.code }, true),
      // The final response already completed the call inside the isolate; skip a second entry.
      complete: () => { if (!finalSeen) this.#deliver(callId, childId, DELIVER_COMPLETE, null, true); },
    });
  }
}
