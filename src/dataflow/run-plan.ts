/**
 * Runs a frozen plan for one request. The result is an Observable of completed output sets (one
 * per completion; several when decoupled steps stream). Errors and cancellation travel in it:
 * a failing step errors the stream naming the step, and unsubscribing (or an error) unsubscribes
 * every child call still running. Internals are imperative on purpose: this is the per-step hot
 * path (target ≤ 10 µs per step), so no operator chain is built per request.
 *
 * Control flow: a node is decided once its inputs and the tensors its guards read exist. A false
 * guard, a switch case not taken or a SKIPPED input skips it, and its outputs become SKIPPED once
 * every producer of each was skipped; a `return` emits and completes the run; a map or loop is one
 * call whose sub-runs (runPlan again) hang off this run, so unsubscribing reaches them. A plan
 * without control flow takes none of these branches (PlanIndex.controlFlow).
 */
import { Observable, type Subscriber } from 'rxjs';
import type { ModelHost } from '../backend/index.js';
import { setCallChain, type CallLink, type InferenceRequest, type InferenceResponse } from '../inference/index.js';
import { Errors, stepFailure, toTributaryError } from '../errors.js';
import type { PipelinePlan, PlanStep, PlanTensor } from '../pipeline/index.js';
import type { Clock } from '../scheduler/index.js';
import { renameTensor, type Tensor } from '../tensor/index.js';
import { settleOnReturn, type ChildCall } from './child-call.js';
import { extraReads, planIndex, type PlanIndex } from './plan-index.js';
import { returnOutputs } from './return-outputs.js';
import { RunGuards } from './run-guards.js';
import { runNested } from './run-nested.js';
import type { StepStats } from './step-stats.js';
import { bridged, findOutput } from './step-io.js';
import { SKIPPED, TensorScope, type ScopeValue } from './tensor-scope.js';

export interface RunContext {
  readonly host: ModelHost;
  readonly pipeline: string;
  /** The pipeline request: inputs, id, parameters, sequence flags, requested outputs. */
  readonly request: InferenceRequest;
  /** Carried to every child request unchanged. */
  readonly priority?: number;
  readonly deadline?: number;
  /** The models this run's ancestors wait in, this pipeline last: every step request carries it. */
  readonly chain?: readonly CallLink[];
  readonly clock: Clock;
  readonly stats?: StepStats | undefined;
  /** The pipeline batches (max_batch_size > 0): a returned literal gets the request's batch dim. */
  readonly batching?: boolean;
}

export function runPlan(plan: PipelinePlan, ctx: RunContext): Observable<Tensor[]> {
  return new Observable<Tensor[]>((subscriber) => {
    const run = new PlanRun(plan, ctx, subscriber);
    run.start();
    return () => run.teardown();
  });
}

class PlanRun {
  readonly #plan: PipelinePlan;
  readonly #ctx: RunContext;
  readonly #out: Subscriber<Tensor[]>;
  readonly #root = new TensorScope();
  readonly #children = new Set<ChildCall>();
  readonly #wanted: readonly PlanTensor[];
  readonly #wantedSet: ReadonlySet<string>;
  readonly #index: PlanIndex;
  /** Guards and switch decisions; made at the first guarded node, so plain plans never build it. */
  #guards: RunGuards | undefined;
  /** Skipped producers so far, for tensors with several. */
  #skips: Map<string, number> | undefined;
  /** Some tensor is SKIPPED: only then do inputs need that check (plain plans never pay it). */
  #anySkipped = false;
  /** Running child calls, plus one held while starting so a synchronous host cannot end the run early. */
  #pending = 1;
  #closed = false;
  #emitted = 0;

  constructor(plan: PipelinePlan, ctx: RunContext, out: Subscriber<Tensor[]>) {
    this.#plan = plan;
    this.#ctx = ctx;
    this.#out = out;
    const all = plan.outputs;
    const asked = ctx.request.outputs;
    this.#wanted = asked ? all.filter((o) => asked.some((r) => r.name === o.name)) : all;
    if (this.#wanted.length === 0) this.#wanted = all;
    this.#wantedSet = new Set(this.#wanted.map((o) => o.name));
    this.#index = planIndex(plan);
  }

  start(): void {
    const root = this.#root;
    for (const t of this.#ctx.request.inputs) root.set(t.name, t);
    for (const i of this.#plan.inputs) if (!root.owns(i.name)) root.set(i.name, null);
    for (const step of this.#plan.steps) {
      if (this.#closed) return;
      if (this.#ready(step, root)) this.#enter(step, root);
    }
    if (!this.#closed) this.#visitSink(root, false);
    this.#release();
  }

  teardown(): void {
    this.#closed = true;
    for (const c of this.#children) c.sub?.unsubscribe();
    this.#children.clear();
  }

  #ready(step: PlanStep, scope: TensorScope): boolean {
    if (scope.hasFired(step.position)) return false;
    for (const t of this.#index.deps[step.position]!) if (scope.lookup(t) === undefined) return false;
    return true;
  }

  /** A ready node: run it, or skip it when an input is SKIPPED or a guard does not hold. */
  #enter(step: PlanStep, scope: TensorScope): void {
    if (!this.#index.controlFlow) return this.#fire(step, scope);
    let run = true;
    try {
      if (this.#anySkipped) for (const t of this.#index.deps[step.position]!) if (scope.lookup(t) === SKIPPED && !this.#guardRead(step, t)) run = false;
      if (run && step.guards.length > 0) run = (this.#guards ??= new RunGuards(this.#plan, this.#ctx)).hold(step.guards, scope);
    } catch (e) {
      return this.#fail(toTributaryError(e).withContext(`pipeline '${this.#ctx.pipeline}', step '${step.name}'`));
    }
    if (!run) return this.#skip(step, scope);
    if (step.kind === 'return') return this.#return(step, scope);
    this.#fire(step, scope);
  }

  /** A tensor only a guard reads: SKIPPED makes that condition false, not the node skipped outright. */
  #guardRead(step: PlanStep, tensor: string): boolean {
    return !step.inputs.some((b) => b.tensor === tensor) && !extraReads(step).includes(tensor);
  }

  /** The node is not run: its outputs become SKIPPED (once every producer of each is skipped). */
  #skip(step: PlanStep, scope: TensorScope): void {
    scope.markFired(step.position);
    this.#ctx.stats?.skipped(step.position);
    const names = step.ret ? step.ret.map((r) => r.name) : step.outputs.map((b) => b.tensor);
    for (const name of names) {
      if (this.#closed) return;
      const producers = this.#plan.producers.get(name);
      if (producers && producers.length > 1) {
        if (!producers.includes(step.position)) continue;
        const n = ((this.#skips ??= new Map()).get(name) ?? 0) + 1;
        this.#skips.set(name, n);
        if (n < producers.length) continue;
      } else if (step.ret && !producers?.includes(step.position)) continue; // a return's output another node makes
      if (scope.lookup(name) !== undefined) continue;
      this.#anySkipped = true;
      scope.set(name, SKIPPED);
      const wake = this.#index.wake.get(name);
      if (wake) for (const pos of wake) if (!this.#closed) this.#visitStep(this.#plan.steps[pos]!, scope, false);
      if (this.#wantedSet.has(name) && !this.#closed) this.#visitSink(scope, false);
    }
  }

  /** A return whose guard holds: emit its outputs, cancel every child still running, complete. */
  #return(step: PlanStep, scope: TensorScope): void {
    scope.markFired(step.position);
    const input = this.#ctx.request.inputs[0];
    const batch = this.#ctx.batching ? (input?.shape[0] ?? 1) : undefined;
    const outputs = returnOutputs(step.ret ?? [], this.#wanted, (n) => scope.lookup(n), batch);
    const { stats, clock } = this.#ctx;
    stats?.success(step.position, 0);
    if (++this.#emitted > 1 && !this.#plan.decoupled) return this.#fail(Errors.pipelineNotDecoupled(this.#ctx.pipeline));
    if (stats) {
      settleOnReturn(this.#children, stats, clock);
      // Nodes never decided (waiting on a tensor that will not come now) did not run: skipped.
      for (const s of this.#plan.steps) if (!this.#root.firedAnywhere(s.position)) stats.skipped(s.position);
    }
    this.teardown();
    this.#out.next(outputs);
    this.#out.complete();
  }

  /**
   * New tensors in `scope`: start each consumer where its inputs now exist. Scopes below `scope`
   * (responses of a decoupled step) see the new tensors too; a step runs there only when the
   * scope owns one of its inputs, otherwise it already ran higher up.
   */
  #visitStep(step: PlanStep, scope: TensorScope, mustOwn: boolean): void {
    if (mustOwn && !step.inputs.some((b) => scope.owns(b.tensor))) {
      // not this scope's business, but a deeper scope may own an input
    } else if (this.#ready(step, scope)) {
      this.#enter(step, scope);
    }
    const kids = scope.children;
    if (kids) for (let i = 0; i < kids.length && !this.#closed; i++) this.#visitStep(step, kids[i]!, true);
  }

  #visitSink(scope: TensorScope, mustOwn: boolean): void {
    if (!scope.emitted && (!mustOwn || this.#wanted.some((o) => scope.owns(o.name)))) {
      const outputs: Tensor[] = [];
      let complete = true;
      let skipped: string | undefined;
      for (const o of this.#wanted) {
        const t = scope.lookup(o.name);
        if (t === undefined) { complete = false; break; }
        if (t === SKIPPED) { if (!this.#plan.optionalOutputs.has(o.name)) skipped ??= o.name; }
        else if (t !== null) outputs.push(o.bridge ? bridged(t, o.bridge, o.name) : t);
      }
      if (complete && skipped !== undefined) return this.#fail(Errors.pipelineOutputSkipped(this.#ctx.pipeline, skipped));
      if (complete) {
        scope.emitted = true;
        if (++this.#emitted > 1 && !this.#plan.decoupled) return this.#fail(Errors.pipelineNotDecoupled(this.#ctx.pipeline));
        this.#out.next(outputs);
      }
    }
    const kids = scope.children;
    if (kids) for (let i = 0; i < kids.length && !this.#closed; i++) this.#visitSink(kids[i]!, true);
  }

  #fire(step: PlanStep, scope: TensorScope): void {
    scope.markFired(step.position);
    const inputs: Tensor[] = [];
    for (const b of step.inputs) {
      const t = scope.lookup(b.tensor);
      if (t && t !== SKIPPED) inputs.push(b.bridge ? bridged(t, b.bridge, b.name) : renameTensor(t, b.name));
    }
    // No `signal` on the child: unsubscribing cancels it (the host contract), and a listener per
    // step on the parent's AbortSignal measurably costs (EventTarget bookkeeping, GC pressure).
    const { request, priority, deadline, clock, stats } = this.#ctx;
    const child: InferenceRequest = { model: step.model, version: step.version, inputs, outputs: step.requestedOutputs };
    if (request.id !== undefined) child.id = request.id;
    if (request.parameters !== undefined) child.parameters = request.parameters;
    if (request.sequence !== undefined) child.sequence = request.sequence;
    if (priority !== undefined && priority > 0) child.priority = priority;
    if (deadline !== undefined) child.deadline = deadline;
    if (request.trace !== undefined) child.trace = request.trace;
    // A decoupled step pauses while the pipeline's client is not taking its responses.
    if (request.demand !== undefined) child.demand = request.demand;
    if (request.routingHeaders !== undefined) child.routingHeaders = request.routingHeaders;
    if (this.#ctx.chain !== undefined) setCallChain(child, this.#ctx.chain);
    // A captured run records each node under the request's record; what runs for it records under the node's.
    const rec = request.capture?.open('step', step.name, step.kind === 'model' ? step.model : this.#ctx.pipeline, inputs);
    if (rec) child.capture = rec;

    this.#pending++;
    const call: ChildCall = { step, started: clock.now(), version: undefined, responded: false, settled: false, sub: undefined };
    let ended = false;
    let source: Observable<InferenceResponse>;
    try {
      source = step.kind === 'model'
        ? this.#ctx.host.infer(child)
        : runNested(step, inputs, (n) => scope.lookup(n), rec ? { ...this.#ctx, request: { ...request, capture: rec } } : this.#ctx, runPlan);
    } catch (e) {
      // A host that throws instead of erroring its stream still fails only this request.
      rec?.end(e);
      stats?.failure(step.position);
      return this.#fail(this.#stepError(step, e));
    }
    // Tracked before subscribing: a synchronous host may answer, and a return end the run, inside subscribe().
    this.#children.add(call);
    const sub = source.subscribe({
      next: (resp) => {
        call.version = resp.version;
        call.responded = true;
        rec?.respond(resp.outputs, resp.version);
        this.#onResponse(step, scope, resp);
      },
      error: (e: unknown) => {
        ended = true;
        rec?.end(e);
        this.#children.delete(call);
        if (call.settled) return;
        call.settled = true;
        stats?.failure(step.position);
        this.#fail(this.#stepError(step, e));
      },
      complete: () => {
        ended = true;
        rec?.end();
        this.#children.delete(call);
        if (call.settled) return;
        call.settled = true;
        stats?.success(step.position, (clock.now() - call.started) * 1e6, call.version);
        this.#release();
      },
    });
    call.sub = sub;
    // Unsubscribed before its end (the run failed or returned): a step that answered is done, the rest cancelled.
    if (rec) sub.add(() => (call.responded && !step.decoupled ? rec.end() : rec.cancel()));
    if (ended) this.#children.delete(call);
    else if (this.#closed) sub.unsubscribe();
  }

  /** A map or loop is one node to this run; its sub-run's errors already name the step inside it. */
  #stepError(step: PlanStep, e: unknown): unknown {
    return step.kind === 'model' ? stepFailure(this.#ctx.pipeline, step.name, e) : e;
  }

  #onResponse(step: PlanStep, scope: TensorScope, resp: InferenceResponse): void {
    if (this.#closed || resp.outputs.length === 0) return; // an empty final response only ends a stream
    const target = step.decoupled ? scope.fork() : scope;
    for (const b of step.outputs) {
      const t = findOutput(resp.outputs, b.name);
      if (t) target.set(b.tensor, renameTensor(t, b.tensor));
      else if (!step.decoupled) {
        return this.#fail(Errors.stepFailed(this.#ctx.pipeline, step.name, `model '${step.model}' returned no output '${b.name}' (mapped to tensor '${b.tensor}')`));
      }
    }
    let feedsSink = false;
    for (const b of step.outputs) {
      if (!target.owns(b.tensor)) continue;
      if (this.#wantedSet.has(b.tensor)) feedsSink = true;
      const consumers = this.#index.wake.get(b.tensor);
      if (!consumers) continue;
      for (const pos of consumers) {
        if (this.#closed) return;
        this.#visitStep(this.#plan.steps[pos]!, target, false);
      }
    }
    if (feedsSink && !this.#closed) this.#visitSink(target, false);
  }

  #release(): void {
    if (--this.#pending > 0 || this.#closed) return;
    if (this.#emitted === 0 && !this.#plan.decoupled) {
      return this.#fail(Errors.pipelineOutputMissing(this.#ctx.pipeline, this.#wanted.filter((o) => this.#root.lookup(o.name) === undefined).map((o) => o.name)));
    }
    this.#closed = true;
    this.#out.complete();
  }

  #fail(err: unknown): void {
    if (this.#closed) return;
    this.teardown();
    this.#out.error(err);
  }
}
