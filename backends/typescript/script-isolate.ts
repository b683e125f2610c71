/**
 * One V8 isolate running one model script. Longer than most files because the host half of the
 * channel (calls in, callbacks out, child calls, limits) only makes sense read together.
 *
 * Calls enter the isolate asynchronously (Reference.apply): the script runs on an isolated-vm pool
 * thread, never on the server's event loop, so a spinning script stalls nobody and each instance's
 * isolate computes on its own core. isolated-vm drains the isolate's microtask queue before an
 * entry settles, so a script that does not await the host finishes inside one entry. Callbacks to
 * the host are synchronous ivm Callbacks (the pool thread waits while the main thread runs them,
 * which isolated-vm allows from any thread into the default isolate), so they keep their order and
 * may read the scratch buffer; only infer, cancel, metric updates and model control are
 * fire-and-forget (see #installHost).
 * Entries run one after the other, in the order the host issues them (see #enter).
 *
 * Measured on the 2 shared cores (trivial function, p50): applySync 2.4 µs, apply 20 µs, a
 * worker-thread postMessage round trip 46 µs, a synchronous callback from the pool thread 17 µs.
 * Worker threads would cost twice the hop for the same isolation, so isolates stay in-process on
 * ivm's threads (hardware_concurrency + 1 of them). The hop is what a warm call now costs over
 * the old synchronous entry: about 20 µs more, and more on a loaded machine.
 *
 * Messages travel through the isolate's scratch buffer (bls/scratch.ts) when they fit, so an entry
 * passes only numbers; a call that completes inside the entry leaves its responses there, read
 * right after the entry settles. Larger or unusual messages are structured-cloned as before, and
 * so are decoupled responses, which the sandbox queues and sends in batches (sendMany).
 *
 * The fast path (#executeOnLoop, #deliverOnLoop): when the instance's recent entries were short
 * (fast-path-gate.ts), execute() and the continuations after a BLS child's answer are entered
 * synchronously on the main thread under isolated-vm's timeout, and children start through a
 * synchronous callback. A sequential BLS call then costs no thread hop: 46-55 µs over none where
 * the pool thread cost 140-400 µs (64 calls to an identity model, 2 cores; `npm run bench bls`).
 * A stopped entry leaves the isolate usable, but it may lose its queued microtasks (a stop inside
 * a microtask checkpoint drops them), so the sandbox resets what they would have flushed (its
 * discard entry) and the stopped call's id is dropped: whatever it still sends, starts or flushes
 * is ignored. The call is then re-run from the start on the pool thread under a new id, unless it
 * had already answered or sent decoupled responses; the children the stopped run made answer the
 * re-run from their record (child-replay.ts), so each child runs once. Calls that changed custom
 * metrics or models keep their continuations on the pool thread: those changes are not undone.
 */
import { CancelSource } from '../../src/inference/index.js';
import ivm from './isolated-vm.js';
import type { CustomMetricsScope, ModelHost } from '../../src/backend/index.js';
import type { InferenceResponse } from '../../src/inference/index.js';
import { Errors, TributaryError, boundMessage, isErrorKind, toTributaryError, type ErrorKind } from '../../src/errors.js';
import { currentLogContext, withLogContext, type Logger } from '../../src/logger.js';
import {
  DELIVER_COMPLETE, DELIVER_ERROR, DELIVER_RESPONSE,
  type QueuedSend, type WireChildRequest, type WireError, type WireInitArgs, type WireRequest, type WireResponse,
} from './bls/wire.js';
import { IN_SCRATCH, SCRATCH_BYTES, Scratch } from './bls/scratch.js';
import type { ScriptBundle } from './bundle-script.js';
import { childRequest, startChild, type ParentContext } from './child-call.js';
import { ChildLink, ChildLog, sameChildRequest } from './child-replay.js';
import { FastPathGate } from './fast-path-gate.js';
import type { SandboxOptions } from './sandbox-options.js';
import type { StackMapper } from './stack-mapper.js';
import { cloneableRequest, cloneableResponse, tensorToWire } from './tensor-codec.js';
import { runModelControl } from './script-control.js';
import { applyMetricUpdates, declareFamily, declareMetric } from './script-metrics.js';

export interface IsolateSpec {
  model: string;
  bundle: ScriptBundle;
  mapStack: StackMapper;
  options: SandboxOptions;
  init: Omit<WireInitArgs, 'instanceIndex'>;
  host: ModelHost;
  log: Logger;
  /** execute() threw or rejected: the error its requests get, for the server's log too. */
  onExecuteError?: (error: TributaryError) => void;
  /** The model version's custom metrics (MetricFamily in tributary/bls). */
  metrics?: CustomMetricsScope;
  /** isReady() threw or the isolate died answering it: the model answered not ready. */
  onReadyError?: (error: Error) => void;
}

/** What the instance tells the isolate about the requests of one call. */
export interface CallHandlers {
  /** Decoupled responses (and their final flags). */
  send?(index: number, response: WireResponse | null, final: boolean): void;
  /** Decoupled: true while some request of the call has not received its final response. */
  open?(): boolean;
  /** Fail the call's unfinished requests after execute() has returned (decoupled). */
  fail?(error: TributaryError): void;
  /**
   * Decoupled, after request `index`'s latest responses: 0 when its client can take more,
   * SLOT_PAUSED when not (then `wake` runs once, when it can again or is gone: `open` says which),
   * SLOT_CLOSED when the request is gone (bls/send-queue.ts).
   */
  hold?(index: number, wake: (open: boolean) => void): number;
  isCancelled(index: number): boolean;
  parent(index: number): ParentContext;
  /** The models on the call chains of the call's requests (model control refuses to load them). */
  callers?(): readonly string[];
}

/** One call into the script (initialize, execute, finalize, isReady) until it settles. */
class LiveCall {
  readonly id = nextCallId++;
  readonly what: string;
  readonly handlers: CallHandlers;
  /** The traced request's log context, taken where the call starts (on the main thread). */
  readonly logContext = currentLogContext();
  spentMs = 0;
  settled = false;
  /** Decoupled responses of this call reached the host. */
  sent = false;
  /** execute()'s requests: what a re-run starts from. */
  readonly requests: readonly WireRequest[] | undefined;
  /**
   * Its children and what they answered, while it may be stopped in a continuation on the main
   * thread and re-run (child-replay.ts); undefined for a call that may not: a re-run, a call that
   * changed metrics or models (those changes are not undone), or one that is not execute().
   */
  log: ChildLog | undefined;
  /** A re-run's view of the stopped run's children, claimed in order by its own (child-replay.ts). */
  replay: ChildLink[] | undefined;
  replayAt = 0;
  #done = false;
  #value: WireResponse[] | null = null;
  #error: TributaryError | undefined;
  #res: ((r: WireResponse[] | null) => void) | undefined;
  #rej: ((e: TributaryError) => void) | undefined;

  constructor(what: string, handlers: CallHandlers, requests?: readonly WireRequest[], replay?: ChildLink[]) {
    this.what = what;
    this.handlers = handlers;
    this.requests = requests;
    this.log = requests && !replay ? new ChildLog() : undefined;
    this.replay = replay;
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

const TIMED_OUT = 'Script execution timed out.';
/** Ids of calls stopped on the main thread that the host still remembers (see #drop). */
const DROPPED_KEPT = 256;
const NO_PARENT: ParentContext = { signal: new CancelSource(), chain: [], watch: () => () => {} };

let nextCallId = 1;

/** The entry on the main thread was stopped at its bound (not failed otherwise). */
function isStop(isolate: ivm.Isolate, e: unknown): boolean {
  return !isolate.isDisposed && e instanceof Error && e.message === TIMED_OUT;
}

/**
 * A call whose continuation may run on the main thread: stopped there, it can be re-run (it records
 * its children, and no decoupled response of it went out).
 */
function rerunnable(call: LiveCall): boolean {
  return call.log?.recording === true && !call.sent;
}

export type CallResult = WireResponse[] | null | Promise<WireResponse[] | null>;

export class ScriptIsolate {
  readonly #spec: IsolateSpec;
  readonly #isolate: ivm.Isolate;
  readonly #context: ivm.Context;
  readonly #scratchBuffer = new SharedArrayBuffer(SCRATCH_BYTES);
  readonly #scratch = new Scratch(this.#scratchBuffer);
  #refs!: { init: ivm.Reference; execute: ivm.Reference; deliver: ivm.Reference; finalize: ivm.Reference; resume: ivm.Reference; ready: ivm.Reference; discard: ivm.Reference };
  readonly #live = new Map<number, LiveCall>();
  readonly #children = new Map<number, ChildLink>();
  /**
   * Calls stopped on the main thread, by id: what they still start, flush or ask for (callbacks
   * that arrive after the stop) is dropped in silence, since their re-runs do it again.
   */
  readonly #dropped = new Set<number>();
  /**
   * Child deliveries held while an entry is in flight, in order, to enter on the main thread once
   * none is (a delivery that entered the pool thread would run after those entries anyway); any
   * other entry issued first sends them to the pool thread ahead of it (#enter).
   */
  readonly #deferred: [number, number, number, WireResponse | WireError | null, boolean][] = [];
  #draining = false;
  /** An entry runs synchronously on the main thread (a delivery arriving meanwhile waits). */
  #onLoop = false;
  /** Child starts made by the entry on the main thread (inferNow), in order. */
  readonly #held: [number, number, WireChildRequest][] = [];
  /** Metric updates made by the entry on the main thread (metricsNow), with their calls. */
  readonly #heldMetrics: [unknown, number][] = [];
  /** Entries issued and not yet settled (isolated-vm runs an isolate's entries in issue order). */
  #inFlight = 0;
  #broken: TributaryError | undefined;
  #gate: FastPathGate;
  /** Called once when the isolate dies (limit hit, or disposed); the pool replaces it. */
  onBroken: ((e: TributaryError) => void) | undefined;

  private constructor(spec: IsolateSpec, instanceIndex: number) {
    this.#spec = spec;
    const o = spec.options;
    this.#gate = new FastPathGate(o.fastPathMs < o.timeoutMs ? o.fastPathMs : 0, `model '${spec.model}' instance ${instanceIndex}`, spec.log);
    this.#isolate = new ivm.Isolate({ memoryLimit: spec.options.memoryLimitMb });
    this.#context = this.#isolate.createContextSync();
  }

  /** True until the instance makes this isolate its active one (tags its log lines). */
  spare = false;
  /** The script's class has isReady() (initialize() said so). */
  hasReady = false;

  /** Create, run the bundle and the script's initialize(). Load time only. */
  static async create(spec: IsolateSpec, instanceIndex: number, spare = false): Promise<ScriptIsolate> {
    const s = new ScriptIsolate(spec, instanceIndex);
    s.spare = spare;
    try {
      s.#installHost();
      const script = await s.#isolate.compileScript(spec.bundle.code, { filename: spec.bundle.filename });
      let err: unknown;
      await new Promise<void>((done) => {
        s.#enter(undefined, (timeout) => script.run(s.#context, { timeout }).catch((e: unknown) => { err = e; }).finally(done));
      });
      if (s.#broken) throw s.#broken;
      if (err) throw s.#thrown('loading the script', err);
      const g = s.#context.global;
      const ref = (n: string) => g.getSync(n, { reference: true }) as ivm.Reference;
      s.#refs = {
        init: ref('__trb_init'), execute: ref('__trb_execute'), deliver: ref('__trb_deliver'), finalize: ref('__trb_finalize'), resume: ref('__trb_resume'), ready: ref('__trb_ready'), discard: ref('__trb_discard'),
      };
      const init = { ...spec.init, instanceIndex };
      // An empty answer rather than none: the script has isReady() (bls/entry.ts).
      s.hasReady = (await s.#run('initialize()', { isCancelled: () => false, parent: () => NO_PARENT }, (id, timeout) =>
        s.#refs.init.apply(undefined, [id, init], { arguments: { copy: true }, timeout }))) !== null;
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
    // A synchronous entry while another is in flight would wait on the main thread for the isolate.
    if (this.#inFlight === 0 && !this.#onLoop && !this.#broken && this.#gate.take()) return this.#executeOnLoop(requests, handlers);
    if (this.#broken) throw this.#broken;
    return this.#executeOnPool(new LiveCall('execute()', handlers, requests));
  }

  #executeOnPool(call: LiveCall): CallResult {
    const requests = call.requests!;
    this.#live.set(call.id, call);
    this.#enter(call, (timeout, scratch) => {
      if (scratch && this.#scratch.writeRequests(requests)) return this.#refs.execute.apply(undefined, [call.id, IN_SCRATCH], { timeout });
      return this.#refs.execute.apply(undefined, [call.id, requests.map(cloneableRequest)], { arguments: { copy: true }, timeout });
    }, true);
    return call.outcome();
  }

  #executeOnLoop(requests: readonly WireRequest[], handlers: CallHandlers): CallResult {
    const call = new LiveCall('execute()', handlers, requests);
    this.#live.set(call.id, call);
    const timeout = this.#gate.boundMs;
    const t0 = performance.now();
    const cpu0 = this.#isolate.cpuTime;
    this.#onLoop = true;
    try {
      if (this.#scratch.writeRequests(requests)) this.#refs.execute.applySync(undefined, [call.id, IN_SCRATCH, true], { timeout });
      else this.#refs.execute.applySync(undefined, [call.id, requests.map(cloneableRequest), true], { arguments: { copy: true }, timeout });
    } catch (e) {
      this.#leftLoopOn(call, e, t0, cpu0);
      return call.outcome();
    }
    this.#leaveLoop(false);
    call.spentMs = performance.now() - t0;
    this.#gate.record(Number(this.#isolate.cpuTime - cpu0) / 1e6);
    if (this.#scratch.held) this.#takeCompletion();
    this.#drain();
    return call.outcome();
  }

  /**
   * An entry of `call` on the main thread (execute() or a continuation) ran into the fast path's
   * bound after `ms` (`cpuMs` of it computing) and was stopped. Unless its answer or decoupled
   * responses went out already, the call is forgotten and re-run from the start on the isolate
   * thread, its children answered from the record of the stopped run (child-replay.ts).
   */
  #stopped(call: LiveCall, ms: number, cpuMs: number): void {
    const timeout = this.#gate.boundMs;
    this.#gate.stop(ms, cpuMs);
    // A completion written before the stop is whole (the sandbox marks it held last).
    if (this.#scratch.held) this.#takeCompletion();
    if (call.settled) {
      // execute() had returned, and what the stop cut was a stream running on after it (a
      // decoupled task): it will never go on, so its requests fail now rather than at their
      // response timeout.
      if (call.handlers.open?.()) call.handlers.fail?.(Errors.scriptFastPathStopped(this.#spec.model, timeout));
      return;
    }
    if (call.sent) {
      this.#settle(call, null, Errors.scriptFastPathStopped(this.#spec.model, timeout));
      return;
    }
    this.#drop(call);
    // The stopped run's metric changes and child receivers go: the re-run makes its own
    // (bls/entry.ts). Entered once the call is forgotten: what the stopped run left queued (its
    // sends, starts, flushes) runs with this entry and finds no call to reach.
    try {
      this.#refs.discard.applySync(undefined, [call.id], { timeout });
    } catch {
      // Only unsent metric changes and unreachable receivers are at stake; the re-run goes ahead.
    }
    // Its children, in flight or answered, wait for the re-run to claim them.
    const links = call.log?.links ?? [];
    for (const l of links) {
      if (l.to) this.#children.delete(l.to.childId);
      l.to = undefined;
    }
    const rerun = new LiveCall('execute()', call.handlers, call.requests, links);
    const out = this.#executeOnPool(rerun);
    if (out instanceof Promise) out.then((r) => call.resolve(r), (e: TributaryError) => call.reject(e));
    else call.resolve(out);
    this.#drain();
  }

  /** Forget a stopped call (see #dropped). */
  #drop(call: LiveCall): void {
    this.#live.delete(call.id);
    this.#dropped.add(call.id);
    if (this.#dropped.size > DROPPED_KEPT) this.#dropped.delete(this.#dropped.values().next().value!);
  }

  async finalize(): Promise<void> {
    if (!this.#broken) {
      try {
        await this.#run('finalize()', { isCancelled: () => true, parent: () => NO_PARENT }, (id, timeout) =>
          this.#refs.finalize.apply(undefined, [id], { timeout }));
      } catch (e) {
        this.#spec.log.warn(`model '${this.#spec.model}': ${(e as Error).message}`);
      }
    }
    this.dispose();
  }

  /**
   * The script's isReady() (only when hasReady): true when it said exactly true. Rejects when it
   * threw, or the isolate died; the instance bounds the wait.
   */
  async ready(): Promise<boolean> {
    const r = await this.#run('isReady()', { isCancelled: () => false, parent: () => NO_PARENT }, (id, timeout) =>
      this.#refs.ready.apply(undefined, [id], { timeout }));
    return r !== null;
  }

  /** A settled decoupled call whose requests were all closed by the host (watchdog): drop it. */
  forget(handlers: CallHandlers): void {
    for (const [id, c] of this.#live) if (c.handlers === handlers && c.settled) this.#live.delete(id);
  }

  dispose(): void {
    this.#break(Errors.scriptIsolateShutDown(this.#spec.model), false);
  }

  /**
   * Enter the isolate for one call. The result settles when the entry does (a script that does not
   * await the host) or when the script calls back later.
   */
  #run(what: string, handlers: CallHandlers, enter: (callId: number, timeoutMs: number, scratch: boolean) => Promise<unknown>, timed = false): CallResult {
    if (this.#broken) throw this.#broken;
    const call = new LiveCall(what, handlers);
    this.#live.set(call.id, call);
    this.#enter(call, (timeout, scratch) => enter(call.id, timeout, scratch), timed);
    return call.outcome();
  }

  /**
   * Run `f` (an asynchronous entry) inside the isolate with the calling call's remaining time
   * budget. Entries are issued at once, even while others are in flight: isolated-vm runs them in
   * order, and a child's response then waits for no thread hop but its own (a sequential BLS loop
   * would otherwise also wait for the previous entry's settle notice). The host touches the
   * scratch buffer only while nothing is in flight (`scratch` tells `f` whether it may write a
   * message there, else it clones), and takes a held completion when the last entry settles.
   */
  #enter(call: LiveCall | undefined, f: (timeoutMs: number, scratch: boolean) => Promise<unknown>, timed = false, charged = true): void {
    if (this.#broken) return;
    // Held deliveries go first, in order: this entry must not overtake them.
    if (this.#deferred.length && !this.#draining) {
      for (const [callId, childId, kind, payload, final] of this.#deferred.splice(0)) this.#deliverOnPool(callId, childId, kind, payload, final);
    }
    const timeout = Math.max(1, Math.ceil(this.#spec.options.timeoutMs - (charged ? call?.spentMs ?? 0 : 0)));
    const scratch = this.#inFlight === 0;
    // Timed only when alone in the isolate: the CPU time read at settle is then this entry's.
    const cpu0 = timed && scratch ? this.#isolate.cpuTime : undefined;
    this.#inFlight++;
    const t0 = performance.now();
    const settle = (failed: boolean, e?: unknown) => {
      this.#inFlight--;
      const ms = performance.now() - t0;
      if (call && charged) call.spentMs += ms;
      if (cpu0 !== undefined && !failed && this.#inFlight === 0 && !this.#broken) this.#gate.recordPool(Number(this.#isolate.cpuTime - cpu0) / 1e6);
      try {
        if (failed) this.#entryFailed(call, e);
        else if (this.#inFlight === 0 && !this.#broken && this.#scratch.held) this.#takeCompletion();
        this.#drain();
      } catch (err) {
        try { this.#entryFailed(call, err); } catch (err2) { this.#spec.log.error(`model '${this.#spec.model}': ${(err2 as Error).message}`); }
      }
    };
    let p: Promise<unknown>;
    try { p = f(timeout, scratch); } catch (e) { p = Promise.reject(e); }
    p.then(() => settle(false), (e: unknown) => settle(true, e));
  }

  #entryFailed(call: LiveCall | undefined, e: unknown): void {
    const where = call ? ` in ${call.what}` : ' while loading';
    const o = this.#spec.options;
    if (this.#isolate.isDisposed) {
      this.#break(Errors.scriptLimit(this.#spec.model, `script exceeded its memory limit of ${o.memoryLimitMb} MB (parameter memory_limit_mb)${where}; its isolate was replaced`));
    } else if (e instanceof Error && e.message === TIMED_OUT) {
      this.#break(Errors.scriptLimit(this.#spec.model, `script ran past its time limit of ${o.timeoutMs} ms (parameter timeout_ms)${where}; its isolate was replaced`));
    } else if (call) {
      this.#settle(call, null, this.#failure(call.what, this.#thrown(call.what, e)));
    } else {
      throw e;
    }
  }

  #settle(call: LiveCall, result: WireResponse[] | null, error: TributaryError | undefined): void {
    if (call.settled) return;
    call.settled = true;
    this.#abandonReplay(call);
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
    this.#deferred.length = 0;
    for (const c of this.#children.values()) c.cancel();
    this.#children.clear();
    for (const call of this.#live.values()) this.#abandonReplay(call);
    for (const call of this.#live.values()) {
      if (call.settled) call.handlers.fail?.(error);
      else { call.settled = true; call.reject(error); }
    }
    this.#live.clear();
    if (!this.#isolate.isDisposed) this.#isolate.dispose();
    this.onBroken?.(error);
  }

  /** A script error as the client sees it: kind and code kept from a ModelError, position from the source map. */
  scriptError(what: string, e: WireError): TributaryError {
    const mapped = this.#spec.mapStack(e.stack);
    if (mapped.stack) this.#spec.log.verbose(1, `model '${this.#spec.model}': ${mapped.stack}`);
    const label = e.name && e.name !== 'Error' && e.name !== 'ModelError' ? `${e.name}: ` : '';
    const at = mapped.location ? ` (at ${mapped.location})` : '';
    // A host error the script threw on (a BLS call this model made) may already name this model.
    const own = `model '${this.#spec.model}': `;
    const text = e.message.startsWith(own) ? e.message.slice(own.length) : e.message;
    const message = `${own}${what} failed: ${label}${text}${at}`;
    const kind: ErrorKind = isErrorKind(e.kind) ? e.kind : 'INTERNAL';
    if (e.code || e.kind) return new TributaryError(e.code ?? Errors.scriptError.code, kind, message);
    return new TributaryError(Errors.scriptError.code, 'INTERNAL', message);
  }

  /**
   * A call's error, reported to onExecuteError when it is execute()'s; not a CANCELLED one: a
   * script that stops because its request was cancelled (an awaited send rejects) failed nothing.
   */
  #failure(what: string, error: TributaryError): TributaryError {
    if (what === 'execute()' && error.kind !== 'CANCELLED') this.#spec.onExecuteError?.(error);
    return error;
  }

  #thrown(what: string, e: unknown): TributaryError {
    const err = e as Error;
    return this.scriptError(what, { message: err?.message ?? String(e), name: err?.name, stack: err?.stack });
  }

  /**
   * A child's response, error or end for the sandbox. On the main thread (synchronously, under the
   * fast path's bound) when the fast path is open, nothing is in the isolate and the call may be
   * re-run (it records its children), as isolated-vm's thread hop costs more than most
   * continuations (10 µs, measured, where the hop costs 100-400 µs on a loaded machine); on the
   * isolate thread otherwise.
   */
  #deliver(callId: number, childId: number, kind: number, payload: WireResponse | WireError | null, final: boolean): void {
    if (kind !== DELIVER_RESPONSE || final) this.#children.delete(childId);
    const call = this.#live.get(callId);
    const recording = call !== undefined && rerunnable(call);
    const mayLoop = recording && this.#gate.open;
    // A continuation is a call: one that the gate keeps off counts against its cooldown.
    if (recording && !mayLoop) this.#gate.pass();
    if (this.#deferred.length || (mayLoop && (this.#inFlight > 0 || this.#onLoop))) {
      this.#deferred.push([callId, childId, kind, payload, final]);
      return;
    }
    if (mayLoop) this.#enterDelivery(callId, childId, kind, payload, final);
    else this.#deliverOnPool(callId, childId, kind, payload, final);
  }

  /** Enter one delivery now: on the main thread when the call may be re-run and the gate says so. */
  #enterDelivery(callId: number, childId: number, kind: number, payload: WireResponse | WireError | null, final: boolean): void {
    const call = this.#live.get(callId);
    if (call && rerunnable(call) && !this.#broken && this.#gate.take()) this.#deliverOnLoop(call, childId, kind, payload, final);
    else this.#deliverOnPool(callId, childId, kind, payload, final);
  }

  /** Enter the held deliveries once nothing is in the isolate, each as #deliver would. */
  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    try {
      while (this.#deferred.length && this.#inFlight === 0 && !this.#onLoop && !this.#broken) {
        const [callId, childId, kind, payload, final] = this.#deferred.shift()!;
        this.#enterDelivery(callId, childId, kind, payload, final);
      }
      // An entry went to the pool thread: the rest follow it there, in order.
      for (const [callId, childId, kind, payload, final] of this.#deferred.splice(0)) {
        if (!this.#broken) this.#deliverOnPool(callId, childId, kind, payload, final);
      }
    } finally {
      this.#draining = false;
    }
  }

  #deliverOnLoop(call: LiveCall, childId: number, kind: number, payload: WireResponse | WireError | null, final: boolean): void {
    const timeout = this.#gate.boundMs;
    const t0 = performance.now();
    const cpu0 = this.#isolate.cpuTime;
    this.#onLoop = true;
    try {
      if (kind === DELIVER_RESPONSE && this.#scratch.writeResponse(payload as WireResponse)) {
        this.#refs.deliver.applySync(undefined, [call.id, childId, kind, IN_SCRATCH, final, true], { timeout });
      } else {
        const p = kind === DELIVER_RESPONSE ? cloneableResponse(payload as WireResponse) : payload;
        this.#refs.deliver.applySync(undefined, [call.id, childId, kind, p, final, true], { arguments: { copy: true }, timeout });
      }
    } catch (e) {
      this.#leftLoopOn(call, e, t0, cpu0);
      return;
    }
    this.#leaveLoop(false);
    call.spentMs += performance.now() - t0;
    this.#gate.record(Number(this.#isolate.cpuTime - cpu0) / 1e6);
    if (this.#scratch.held) this.#takeCompletion();
    this.#drain();
  }

  #deliverOnPool(callId: number, childId: number, kind: number, payload: WireResponse | WireError | null, final: boolean): void {
    const call = this.#live.get(callId);
    this.#enter(call, (timeout, scratch) => {
      if (scratch && kind === DELIVER_RESPONSE && this.#scratch.writeResponse(payload as WireResponse)) {
        return this.#refs.deliver.apply(undefined, [callId, childId, kind, IN_SCRATCH, final], { timeout });
      }
      const p = kind === DELIVER_RESPONSE ? cloneableResponse(payload as WireResponse) : payload;
      return this.#refs.deliver.apply(undefined, [callId, childId, kind, p, final], { arguments: { copy: true }, timeout });
    }, true);
  }

  /**
   * A paused request can take responses again (`open`), or is gone: tell the sandbox, in order with
   * other entries. The entry is not charged to its call's timeout_ms, and has the whole of it: a
   * stream that waits for a slow client resumes hundreds of times, and each entry's wall time
   * (the thread hop included, several ms on a loaded machine) summed up would stop a healthy
   * stream after a few seconds. How long a stream may last is response_timeout_ms' business.
   */
  #resume(callId: number, index: number, open: boolean): void {
    this.#enter(this.#live.get(callId), (timeout) => this.#refs.resume.apply(undefined, [callId, index, open], { timeout }), false, false);
  }

  #installHost(): void {
    const g = this.#context.global;
    const log = this.#spec.log;
    const model = this.#spec.model;
    const cb = (name: string, f: (...a: never[]) => unknown, mode?: { ignored: true }) =>
      g.setSync(`__trb_h_${name}`, new ivm.Callback(f as (...a: unknown[]) => unknown, mode));
    cb('done', (callId: number, responses: WireResponse[] | null, error: WireError | null) => {
      const call = this.#live.get(callId);
      if (call) this.#settle(call, responses, error ? this.#failure(call.what, this.scriptError(call.what, error)) : undefined);
    });
    // Decoupled responses come queued, one callback per synchronous run of the script (see
    // bls/send-queue.ts); each is handled as a single response was, in order. Synchronous: a
    // fire-and-forget callback measured no faster (grpc stream 37-44k responses/s either way, SSE
    // 105-120k) and its order against done() and the scratch completion would need proving.
    // The answer names the requests whose client cannot take more, or that are gone, after the
    // last of their responses in this batch (backpressure: bls/send-queue.ts).
    cb('sendMany', (sends: QueuedSend[]) => {
      let states: number[] | null = null;
      for (let k = 0; k < sends.length; k++) {
        const [callId, index, response, final] = sends[k]!;
        const call = this.#live.get(callId);
        if (!call?.handlers.send) continue;
        call.sent = true;
        call.handlers.send(index, response, final);
        const next = sends[k + 1];
        if (!final && call.handlers.hold && (next === undefined || next[0] !== callId || next[1] !== index)) {
          const state = call.handlers.hold(index, (open) => this.#resume(callId, index, open));
          if (state !== 0) (states ??= []).push(callId, index, state);
        }
        if (call.settled && !call.handlers.open?.()) this.#live.delete(callId);
      }
      return states;
    });
    cb('isCancelled', (callId: number, index: number) => this.#live.get(callId)?.handlers.isCancelled(index) ?? true);
    // infer and cancel do not block the script's thread: children started together (Promise.all)
    // reach the host in one event-loop turn and join the callee's dynamic batch, and the script
    // runs on without a thread round trip (17 µs) per child. They stay in order with each other;
    // a refused child is answered through deliver, as any failed child.
    cb('infer', (starts: [number, number, WireChildRequest][]) => this.#infer(starts), { ignored: true });
    // From an entry on the main thread (bls/host-channel.ts onLoop): kept until the entry has
    // returned, then started (#startHeld). Started inside the entry, the host's work for them (the
    // child's model, a garbage collection of the server's heap) would count against the script's
    // fast_path_ms, measured: stops of 2-8 ms blamed on a script that computes 8 µs.
    cb('inferNow', (starts: [number, number, WireChildRequest][]) => { for (const s of starts) this.#held.push(s); });
    cb('cancel', (childId: number) => {
      const c = this.#children.get(childId);
      this.#children.delete(childId);
      c?.cancel();
    }, { ignored: true });
    cb('log', (level: number, msg: string) => {
      // A spare runs initialize() too, at load, so its lines are tagged: otherwise every line of a
      // script's initialize() appears twice (isolate_spares defaults to 1) with no word why.
      const line = `model '${model}'${this.spare ? ' (spare isolate)' : ''}: ${msg}`;
      const write = () => { if (level === 1) log.warn(line); else if (level === 2) log.error(line); else if (level === 3) log.verbose(1, line); else log.info(line); };
      // Host callbacks arrive from the isolate's thread outside any request's context; a line is
      // given a trace id only when one call is live, since with several it cannot tell whose it is.
      const ctx = this.#live.size === 1 ? this.#live.values().next().value?.logContext : undefined;
      if (ctx) withLogContext(ctx, write); else write();
    });
    // Custom metrics and model control (script-metrics.ts, script-control.ts). Declarations answer
    // at once, so a refused one throws where the script makes it; updates and control calls do
    // not hold the script's thread (control outcomes come back through deliver).
    const scope = this.#spec.metrics;
    cb('metricFamily', (name: unknown, description: unknown, kind: unknown) => declareFamily(model, scope, name, description, kind));
    cb('metric', (family: unknown, labels: unknown, buckets: unknown) => declareMetric(model, scope, family, labels, buckets));
    cb('metrics', (updates: unknown, callId: number) => this.#metricUpdates(updates, callId), { ignored: true });
    // From an entry on the main thread: held, and applied when it has returned (#leaveLoop), so the
    // call is known not to be re-run before any child of it answers.
    cb('metricsNow', (updates: unknown, callId: number) => { this.#heldMetrics.push([updates, callId]); });
    // A call that changed models is not re-run either; a stopped call's own operations are dropped.
    cb('control', (callId: number, childId: number, op: number, name: unknown, arg: unknown) => {
      if (this.#dropped.has(callId)) return;
      this.#live.get(callId)?.log?.stop();
      this.#control(callId, childId, op, name, arg);
    }, { ignored: true });
    g.setSync('__trb_h_scratch', new ivm.ExternalCopy(this.#scratchBuffer).copyInto({ release: true }));
    const names = ['scratch', 'done', 'sendMany', 'isCancelled', 'infer', 'inferNow', 'cancel', 'log', 'metricFamily', 'metric', 'metrics', 'metricsNow', 'control'];
    this.#isolate.compileScriptSync(
      `globalThis.__trb_host = { ${names.map((k) => `${k}: __trb_h_${k}`).join(', ')} };\n` +
      `for (const k of ${JSON.stringify(names)}) delete globalThis['__trb_h_' + k];\n` +
      // WebAssembly memory lives outside the V8 heap, so memory_limit_mb cannot bound it (sandbox-options.ts).
      (this.#spec.options.webAssembly ? '' : 'delete globalThis.WebAssembly;'),
    ).runSync(this.#context);
  }

  /** A model control operation; its outcome is delivered as child `childId`'s. */
  #control(callId: number, childId: number, op: number, name: unknown, arg: unknown): void {
    const call = this.#live.get(callId);
    const caller = call && { what: call.what, callers: call.handlers.callers?.() ?? [] };
    runModelControl(this.#spec.host.control, this.#spec.model, caller, this.#spec.log, op, name, arg).then(
      (r) => this.#deliver(callId, childId, r ? DELIVER_RESPONSE : DELIVER_COMPLETE, r, true),
      (e: unknown) => {
        const err = toTributaryError(e);
        this.#deliver(callId, childId, DELIVER_ERROR, { message: boundMessage(err.message), kind: err.kind, code: err.code }, true);
      },
    );
  }

  /**
   * An entry on the main thread returned: its metric changes apply (unless it was stopped: its
   * re-run makes them again), and the children it started go now, while deliveries still wait (one
   * a child makes at once must not enter the isolate from inside this), then #drain.
   */
  #leaveLoop(stopped: boolean): void {
    try {
      const metrics = this.#heldMetrics.splice(0);
      if (!stopped) for (const [updates, callId] of metrics) this.#metricUpdates(updates, callId);
      this.#startHeld();
    } finally {
      this.#onLoop = false;
    }
  }

  /**
   * A call that changed metrics is not re-run (those changes are not undone): its continuations
   * stay on the isolate thread. A stopped call's own changes are dropped.
   */
  #metricUpdates(updates: unknown, callId: number): void {
    if (this.#dropped.has(callId)) return;
    this.#live.get(callId)?.log?.stop();
    applyMetricUpdates(this.#spec.metrics, updates);
  }

  /** An entry of `call` on the main thread threw `e`: stopped at its bound, or failed. */
  #leftLoopOn(call: LiveCall, e: unknown, t0: number, cpu0: bigint): void {
    const stop = isStop(this.#isolate, e);
    this.#leaveLoop(stop);
    if (stop) {
      this.#stopped(call, performance.now() - t0, Number(this.#isolate.cpuTime - cpu0) / 1e6);
    } else {
      this.#entryFailed(call, e);
      this.#drain();
    }
  }

  /** Start children (infer). A refused one is answered through deliver, as any failed child. */
  #infer(starts: readonly [number, number, WireChildRequest][]): void {
    for (const [callId, childId, wire] of starts) {
      try {
        this.#startChild(callId, childId, wire);
      } catch (e) {
        const err = toTributaryError(e);
        this.#deliver(callId, childId, DELIVER_ERROR, { message: boundMessage(err.message), kind: err.kind, code: err.code }, true);
      }
    }
  }

  /** The children an entry on the main thread started (inferNow), once it has returned. */
  #startHeld(): void {
    if (this.#held.length) this.#infer(this.#held.splice(0));
  }

  #startChild(callId: number, childId: number, wire: WireChildRequest): void {
    const call = this.#live.get(callId);
    if (!call) {
      if (this.#dropped.has(callId)) return;
      throw Errors.scriptError(this.#spec.model, `BLS call to '${wire?.model}' made after execute() finished; await BLS calls inside execute()`);
    }
    if (call.replay && this.#claim(call, childId, wire)) return;
    const parent = call.handlers.parent(wire.parent);
    const req = childRequest(this.#spec.model, wire, parent);
    const toWire = (r: InferenceResponse): WireResponse => (r.parameters ? { outputs: r.outputs.map(tensorToWire), parameters: r.parameters } : { outputs: r.outputs.map(tensorToWire) });
    const link = new ChildLink(wire, callId, childId);
    call.log?.add(link);
    this.#children.set(childId, link);
    const route = (kind: number, payload: WireResponse | WireError | null, final: boolean) => {
      link.delivered([kind, payload, final]);
      if (link.to) this.#deliver(link.to.callId, link.to.childId, kind, payload, final);
    };
    let finalSeen = false;
    link.cancel = startChild(this.#spec.host, req, parent, {
      next: (r) => {
        finalSeen ||= r.final;
        route(DELIVER_RESPONSE, toWire(r), r.final);
      },
      error: (e) => route(DELIVER_ERROR, { message: boundMessage(e.message), kind: e.kind, code: e.code }, true),
      // The final response already completed the call inside the isolate; skip a second entry.
      complete: () => { if (!finalSeen) route(DELIVER_COMPLETE, null, true); },
    });
  }

  /**
   * A re-run's next child asks for what the stopped run's next child asked for: it gets that
   * child's answers so far, and the rest as they come. Otherwise the re-run has gone its own way:
   * the stopped run's unclaimed children are cancelled, and this one starts for real.
   */
  #claim(call: LiveCall, childId: number, wire: WireChildRequest): boolean {
    const link = call.replay![call.replayAt];
    if (!link || !sameChildRequest(link.wire, wire)) {
      this.#abandonReplay(call);
      return false;
    }
    call.replayAt++;
    const got = link.deliveries ?? [];
    link.deliveries = undefined;
    link.log = undefined;
    link.to = { callId: call.id, childId };
    if (!link.ended) this.#children.set(childId, link);
    for (const [kind, payload, final] of got) this.#deliver(call.id, childId, kind, payload, final);
    return true;
  }

  /** The stopped run's children that a re-run did not claim: cancelled, and forgotten. */
  #abandonReplay(call: LiveCall): void {
    const links = call.replay;
    if (!links) return;
    call.replay = undefined;
    for (let i = call.replayAt; i < links.length; i++) {
      const l = links[i]!;
      l.deliveries = undefined;
      if (!l.ended) { l.ended = true; l.cancel(); }
    }
  }
}
