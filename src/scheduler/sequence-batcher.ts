/**
 * Triton's sequence batcher (direct and oldest strategies, control inputs, implicit state). Kept
 * in one file over 250 lines because slot bookkeeping, dispatch and release share one state
 * machine; the pure parts (controls, states, batch cutting) live in their own files.
 */
import { scheduleSoon } from './schedule-soon.js';
import type { BackendInstance } from '../backend/index.js';
import type { InferenceRequest } from '../inference/index.js';
import type { ModelConfig } from '../config/index.js';
import { Errors } from '../errors.js';
import { formatShape, type Tensor } from '../tensor/index.js';
import { batchPolicyOf } from './batch-policy.js';
import { toItem, type BatchRequest, type Outlet, type ResponseBody } from './batch-request.js';
import type { Clock, TimerHandle } from './clock.js';
import { abortReason, stoppedError } from './queue-errors.js';
import { QueuedEntries } from './queued-entries.js';
import { formBatch, type BatchChoice, type BatchPolicy } from './form-batch.js';
import { InstancePool } from './instance-pool.js';
import { OrderingGate } from './ordering-gate.js';
import type { LimitedInstance } from './rate-limiter.js';
import type { Scheduler, SchedulerHooks, SequenceStats, WorkItem } from './scheduler.js';
import { Sequence, SequenceEntry, SequenceRequest } from './sequence.js';
import { compileControls, type ControlBuilder } from './sequence-controls.js';
import { compileStates, keepState, type StateSpec } from './sequence-state.js';

export interface SequenceBatcherOptions {
  readonly model: string;
  readonly clock: Clock;
  readonly hooks?: SchedulerHooks | undefined;
  readonly decoupled: boolean;
  readonly initialState: Readonly<Record<string, Uint8Array>>;
  /** Each instance's place in the server's rate limiter, when it has one. */
  readonly limits?: readonly LimitedInstance[] | undefined;
}

/** Triton's default max_sequence_idle_microseconds. */
const DEFAULT_IDLE_US = 1_000_000;
/** How many released IDs are remembered to explain a late request. */
const RELEASED_MEMORY = 4096;

type Candidate = { readonly item: Pick<WorkItem, 'batchKey' | 'batchSize' | 'enqueuedAt'>; readonly entry: SequenceEntry };

interface Lane {
  readonly places: (Sequence | undefined)[];
  used: number;
}

export class SequenceBatcher implements Scheduler {
  readonly #o: SequenceBatcherOptions;
  readonly #pool: InstancePool;
  readonly #controls: readonly ControlBuilder[];
  readonly #states: readonly StateSpec[];
  readonly #strategy: 'direct' | 'oldest';
  readonly #policy: BatchPolicy;
  /** direct: fraction of slots that must be ready before the delay has passed. */
  readonly #minUtilization: number;
  readonly #idleMs: number;
  readonly #idleUs: number;
  readonly #lanes: Lane[];
  readonly #sequences = new Map<bigint | string, Sequence>();
  readonly #backlog: Sequence[] = [];
  readonly #released = new Map<bigint | string, true>();
  readonly #gate: OrderingGate | undefined;
  readonly #outlet: Outlet;
  readonly #entries: QueuedEntries<SequenceEntry>;
  readonly #pumpNow = (): void => this.#pump();
  /** A freed instance pumps through scheduleSoon too, so back-to-back synchronous completions
   * cannot chain forever inside one event-loop turn. */
  readonly #pumpSoon = (): void => {
    if (this.#pumpQueued) return;
    this.#pumpQueued = true;
    scheduleSoon(this.#pumpNow, this.#o.clock);
  };
  readonly #onFinish = (r: BatchRequest): void => this.#finished(r as SequenceRequest);
  #arrivals = 0;
  #queued = 0;
  #inflight = 0;
  #pumpQueued = false;
  #delayTimer: TimerHandle | undefined;
  #stopped = false;
  readonly #stats: SequenceStats = { active: 0, started: 0, ended: 0, released_idle: 0 };

  constructor(config: ModelConfig, instances: readonly BackendInstance[], o: SequenceBatcherOptions) {
    const sb = config.sequence_batching!;
    this.#o = o;
    this.#controls = compileControls(config, o.model);
    this.#states = compileStates(config, o.model, o.initialState);
    this.#pool = new InstancePool(instances, { model: o.model, decoupled: o.decoupled, hooks: o.hooks, onFree: this.#pumpSoon, limits: o.limits });
    this.#strategy = sb.oldest ? 'oldest' : 'direct';
    const slots = Math.max(1, config.max_batch_size);
    let places = slots;
    if (sb.oldest) {
      this.#policy = batchPolicyOf(config, sb.oldest);
      places = sb.oldest.max_candidate_sequences > 0 ? sb.oldest.max_candidate_sequences : slots;
      this.#minUtilization = 0;
    } else {
      const delayUs = sb.direct?.max_queue_delay_microseconds ?? 0;
      this.#policy = { capRows: slots, preferred: new Set(), delayMs: delayUs / 1000, maxItems: config.max_batch_size > 0 ? Infinity : 1 };
      this.#minUtilization = sb.direct?.minimum_slot_utilization ?? 0;
    }
    this.#lanes = instances.map(() => ({ places: new Array<Sequence | undefined>(places).fill(undefined), used: 0 }));
    this.#idleUs = sb.max_sequence_idle_microseconds > 0 ? sb.max_sequence_idle_microseconds : DEFAULT_IDLE_US;
    this.#idleMs = this.#idleUs / 1000;
    const capture: Outlet = {
      send: (r, response, final) => this.#deliver(r as SequenceRequest, response, final),
      fail: (r, error) => this.#next.fail(r, error),
    };
    this.#gate = sb.oldest?.preserve_ordering ? new OrderingGate(toItem) : undefined;
    this.#outlet = capture;
    this.#entries = new QueuedEntries<SequenceEntry>({
      model: o.model,
      clock: o.clock,
      unlink: (e) => {
        if (!e.seq.queue.has(e)) return false;
        e.seq.queue.remove(e);
        this.#queued--;
        return true;
      },
      onDrop: () => {
        this.#inflight--;
        this.#o.hooks?.onQueueDepth?.(this.#queued);
      },
      afterDrop: (e) => this.#left(e),
    });
  }

  get #next(): Outlet {
    return this.#gate ?? toItem;
  }

  enqueue(item: WorkItem): void {
    if (item.done) return;
    const model = this.#o.model;
    if (this.#stopped) return item.fail(stoppedError(model));
    if (item.signal.aborted) return item.fail(abortReason(item.signal, model));
    const f = item.request.sequence;
    if (!f || f.id === 0n || f.id === '') return item.fail(Errors.sequenceMissingId(model));
    let seq = this.#sequences.get(f.id);
    if (!f.start && (!seq || seq.endSeen)) {
      return item.fail(this.#released.has(f.id) && !seq ? Errors.sequenceIdleReleased(model, String(f.id), this.#idleUs) : Errors.sequenceUnknown(model, String(f.id)));
    }
    if (item.deadline !== undefined && item.deadline <= this.#o.clock.now()) return item.fail(Errors.timeout(model));
    if (!seq) {
      seq = new Sequence(f.id);
      this.#sequences.set(f.id, seq);
      this.#released.delete(f.id);
      this.#place(seq);
    }
    if (f.start) this.#stats.started++;
    seq.endSeen = f.end;
    seq.idleSince = undefined;
    const e = new SequenceEntry(item, seq, ++this.#arrivals);
    seq.queue.push(e);
    this.#queued++;
    this.#inflight++;
    if (item.deadline !== undefined) this.#entries.arm(e, item.deadline, () => this.#entries.drop(e, Errors.timeout(model)));
    this.#entries.watch(e);
    this.#o.hooks?.onQueueDepth?.(this.#queued);
    this.#schedulePump();
  }

  inflightCount(): number {
    return this.#inflight;
  }

  sequenceStats(): SequenceStats {
    return { ...this.#stats, active: this.#sequences.size };
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#delayTimer !== undefined) this.#o.clock.clearTimer(this.#delayTimer);
    this.#delayTimer = undefined;
    for (const seq of [...this.#sequences.values()]) {
      for (const e of [...seq.queue]) this.#entries.drop(e, stoppedError(this.#o.model));
      if (seq.idleTimer !== undefined) this.#o.clock.clearTimer(seq.idleTimer);
      seq.idleTimer = undefined;
    }
    await this.#pool.close();
  }

  /** Give a new sequence a place on the instance with the most room, or put it in the backlog. */
  #place(seq: Sequence): void {
    let best = -1;
    for (let i = 0; i < this.#lanes.length; i++) {
      const l = this.#lanes[i]!;
      if (l.used < l.places.length && (best < 0 || l.used < this.#lanes[best]!.used)) best = i;
    }
    if (best < 0) {
      this.#backlog.push(seq);
      return;
    }
    const lane = this.#lanes[best]!;
    seq.lane = best;
    seq.place = lane.places.indexOf(undefined);
    lane.places[seq.place] = seq;
    lane.used++;
  }

  #schedulePump(): void {
    if (this.#pumpQueued) return;
    this.#pumpQueued = true;
    scheduleSoon(this.#pumpNow, this.#o.clock);
  }

  #pump(): void {
    this.#pumpQueued = false;
    if (this.#delayTimer !== undefined) this.#o.clock.clearTimer(this.#delayTimer);
    this.#delayTimer = undefined;
    if (this.#queued === 0) return;
    const now = this.#o.clock.now();
    let wake = Infinity;
    for (let i = 0; i < this.#lanes.length; i++) {
      if (!this.#pool.isFree(i)) continue;
      const cands = this.#candidates(i);
      if (cands.length === 0) continue;
      const choice = this.#strategy === 'oldest' ? formBatch(cands, this.#policy, now) : this.#direct(cands, i, now);
      if (!choice) continue;
      if (choice.until !== undefined) wake = Math.min(wake, choice.until);
      else this.#dispatch(i, choice.run);
    }
    if (wake < Infinity) this.#delayTimer = this.#o.clock.setTimer(this.#pumpNow, wake - now);
  }

  /** The next request of every idle-instance sequence on lane `i`, oldest first. */
  #candidates(i: number): Candidate[] {
    const out: Candidate[] = [];
    for (const seq of this.#lanes[i]!.places) {
      const e = seq?.running === undefined ? (seq?.queue.head as SequenceEntry | undefined) : undefined;
      if (!e) continue;
      const key = this.#states.length ? `${e.item.batchKey}|${this.#stateShapes(seq!, e.item)}` : e.item.batchKey;
      out.push({ item: { batchKey: key, batchSize: e.item.batchSize, enqueuedAt: e.item.enqueuedAt }, entry: e });
    }
    return out.sort((a, b) => a.entry.arrival - b.entry.arrival);
  }

  /** Direct strategy: every ready slot with the oldest request's shape, once utilization or delay allows. */
  #direct(cands: Candidate[], lane: number, now: number): BatchChoice<Candidate> {
    const key = cands[0]!.item.batchKey;
    let run = cands.filter((c) => c.item.batchKey === key);
    if (run.length > this.#policy.maxItems) run = run.slice(0, this.#policy.maxItems);
    const oldest = cands[0]!.item.enqueuedAt;
    const utilization = run.length / this.#lanes[lane]!.places.length;
    if (utilization >= this.#minUtilization || this.#policy.delayMs === 0 || now - oldest >= this.#policy.delayMs) return { run };
    return { until: oldest + this.#policy.delayMs };
  }

  #dispatch(lane: number, run: readonly Candidate[]): void {
    const batch: SequenceRequest[] = [];
    for (const { entry: e } of run) {
      this.#entries.leave(e);
      const seq = e.seq;
      let request: InferenceRequest;
      try {
        request = this.#prepare(seq, e.item);
      } catch (err) {
        this.#inflight--;
        e.item.fail(err);
        this.#left(e);
        continue;
      }
      const r = new SequenceRequest(seq, e.item, request, this.#outlet, this.#onFinish);
      seq.running = r;
      this.#gate?.admit(r);
      batch.push(r);
    }
    this.#o.hooks?.onQueueDepth?.(this.#queued);
    if (batch.length) this.#pool.run(lane, batch);
  }

  /** The request a backend sees: client inputs plus control and state tensors, state outputs requested. */
  #prepare(seq: Sequence, item: WorkItem): InferenceRequest {
    const f = item.request.sequence!;
    if (f.start) seq.state = undefined;
    if (this.#controls.length === 0 && this.#states.length === 0) return item.request;
    const inputs: Tensor[] = [...item.request.inputs];
    for (const c of this.#controls) inputs.push(c(f));
    for (const s of this.#states) inputs.push(seq.state?.get(s.inputName) ?? s.initial);
    let outputs = item.request.outputs;
    if (outputs && this.#states.length) {
      const missing = this.#states.filter((s) => !outputs!.some((o) => o.name === s.outputName));
      if (missing.length) outputs = [...outputs, ...missing.map((s) => ({ name: s.outputName }))];
    }
    return { ...item.request, inputs, outputs };
  }

  #stateShapes(seq: Sequence, item: WorkItem): string {
    const fresh = item.request.sequence?.start === true || seq.state === undefined;
    return this.#states.map((s) => formatShape((fresh ? undefined : seq.state!.get(s.inputName))?.shape ?? s.initial.shape)).join(';');
  }

  /** Keep state outputs for the next request; clients see them only when the config lists them. */
  #deliver(r: SequenceRequest, response: ResponseBody, final: boolean): void {
    if (response && this.#states.length) {
      let hidden = false;
      for (const s of this.#states) {
        const t = response.outputs.find((o) => o.name === s.outputName);
        if (!t) continue;
        (r.seq.state ??= new Map()).set(s.inputName, keepState(t, s.inputName));
        if (!s.listedOutput) hidden = true;
      }
      if (hidden) {
        const hide = new Set(this.#states.filter((s) => !s.listedOutput).map((s) => s.outputName));
        response = { ...response, outputs: response.outputs.filter((o) => !hide.has(o.name)) };
      }
    }
    this.#next.send(r, response, final);
  }

  #finished(r: SequenceRequest): void {
    this.#inflight--;
    const seq = r.seq;
    if (seq.running === r) seq.running = undefined;
    if (r.item.request.sequence?.end) this.#stats.ended++;
    this.#settle(seq);
    this.#schedulePump();
  }

  /** A request left the queue without running: an END request still ends its sequence. */
  #left(e: SequenceEntry): void {
    if (e.item.request.sequence?.end) this.#stats.ended++;
    this.#settle(e.seq);
  }

  /** After a request leaves: end the sequence after END, or start its idle clock. */
  #settle(seq: Sequence): void {
    if (!seq.idle || this.#sequences.get(seq.id) !== seq) return;
    if (seq.endSeen) return this.#release(seq);
    seq.idleSince = this.#o.clock.now();
    if (seq.idleTimer === undefined && !this.#stopped) this.#armIdle(seq, this.#idleMs);
  }

  #armIdle(seq: Sequence, ms: number): void {
    seq.idleTimer = this.#o.clock.setTimer(() => {
      seq.idleTimer = undefined;
      if (seq.idleSince === undefined || this.#sequences.get(seq.id) !== seq) return;
      const left = seq.idleSince + this.#idleMs - this.#o.clock.now();
      if (left > 0) return this.#armIdle(seq, left);
      this.#stats.released_idle++;
      this.#released.set(seq.id, true);
      if (this.#released.size > RELEASED_MEMORY) this.#released.delete(this.#released.keys().next().value!);
      this.#release(seq);
    }, ms);
  }

  /** Drop a sequence and its state; its place goes to the oldest sequence in the backlog. */
  #release(seq: Sequence): void {
    this.#sequences.delete(seq.id);
    seq.state = undefined;
    if (seq.idleTimer !== undefined) this.#o.clock.clearTimer(seq.idleTimer);
    seq.idleTimer = undefined;
    if (seq.lane < 0) return;
    const lane = this.#lanes[seq.lane]!;
    lane.places[seq.place] = undefined;
    lane.used--;
    const laneIndex = seq.lane;
    seq.lane = seq.place = -1;
    while (this.#backlog.length) {
      const next = this.#backlog.shift()!;
      if (this.#sequences.get(next.id) !== next || next.lane >= 0) continue;
      next.lane = laneIndex;
      next.place = lane.places.indexOf(undefined);
      lane.places[next.place] = next;
      lane.used++;
      this.#schedulePump();
      break;
    }
  }
}
