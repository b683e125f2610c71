/**
 * The records of one top-level request. Sampled, every hop is recorded whole when it ends (its
 * inputs, each response's outputs, timings, error). Not sampled, the request still carries a tap so
 * that a failure can be told in full: each hop that fails keeps its inputs and error, and when the
 * request itself fails those records are queued with the request's (its failing path); when it
 * succeeds they are let go. Nothing here throws into the request: a fault drops the record, counted.
 */
import { randomUUID } from 'node:crypto';
import { toTributaryError } from '../errors.js';
import type { CaptureKind, CaptureRecord, InferenceRequest } from '../inference/index.js';
import type { Tensor } from '../tensor/index.js';
import type { CaptureQueue } from './capture-queue.js';
import type { CapturedRecord } from './captured-record.js';
import { heldBytes, snapshotTensors, type SnapTensor, type TakenData } from './record-tensor.js';

/** A failed request keeps at most this many failed hops (its failing path is rarely deeper than 4). */
const FAILED_HOPS = 16;
/** Responses kept per hop of a decoupled model; later ones are counted only. */
const MAX_RESPONSES = 64;

export interface RequestCaptureOptions {
  readonly queue: CaptureQueue;
  readonly maxBytes: number;
  readonly redact: ReadonlySet<string>;
  readonly requestRecords: number;
  /** Asked once when an unsampled request fails: may its records be queued (the failures-per-second bound)? */
  readonly admitFailure: () => boolean;
}

export class RequestCapture {
  readonly #o: RequestCaptureOptions;
  readonly sampled: boolean;
  readonly #t0 = performance.now();
  readonly #wall = Date.now();
  #capture: string | undefined;
  #requestId: string | undefined;
  #next = 1;
  #records = 0;
  #failed: CapturedRecord[] | undefined;
  /** Data taken for this request's records, by source data (snapshotTensors). */
  readonly taken = new Map<object, TakenData>();

  constructor(o: RequestCaptureOptions, sampled: boolean) {
    this.#o = o;
    this.sampled = sampled;
  }

  /** The request's root record; a sampled request's inputs are copied now (the wire buffers are the client's). */
  root(request: InferenceRequest): Hop {
    this.#requestId = request.id || undefined;
    const hop = new Hop(this, 0, undefined, 'request', undefined, request.model, request.inputs, this.#t0);
    if (request.version) hop.version = request.version;
    hop.request = request;
    if (this.sampled) hop.snapshotInputs();
    return hop;
  }

  open(parent: number, kind: CaptureKind, step: string, model: string, inputs: readonly Tensor[]): Hop {
    return new Hop(this, this.#next++, parent, kind, step, model, inputs, performance.now());
  }

  budget(): { left: number } {
    return { left: this.#o.maxBytes };
  }

  get redact(): ReadonlySet<string> {
    return this.#o.redact;
  }

  /** A record that could not be taken (odd data): dropped, counted. */
  fault(): void {
    this.#o.queue.drop('error');
  }

  finish(hop: Hop, error: unknown, cancelled: boolean): void {
    const o = this.#o;
    if (!this.sampled) {
      if (hop.record !== 0) {
        if (error === undefined) return;
        if ((this.#failed ??= []).length < FAILED_HOPS) this.#failed.push(this.#build(hop, error, false));
        return;
      }
      if (error === undefined || cancelled) return;
      if (!o.admitFailure()) {
        o.queue.drop('failures', 1 + (this.#failed?.length ?? 0));
        return;
      }
      for (const r of this.#failed ?? []) o.queue.push(r);
      o.queue.push(this.#build(hop, error, cancelled));
      return;
    }
    // The request's own record is always kept: the bound cuts its hops (request-records - 1 of them).
    if (hop.record !== 0 && ++this.#records >= o.requestRecords) {
      o.queue.drop('request');
      return;
    }
    o.queue.push(this.#build(hop, error, cancelled));
  }

  #build(hop: Hop, error: unknown, cancelled: boolean): CapturedRecord {
    this.#capture ??= randomUUID();
    const inputs = hop.snapshotInputs();
    const e = error === undefined ? undefined : toTributaryError(error);
    const req = hop.request;
    return {
      capture: this.#capture,
      requestId: this.#requestId ?? this.#capture,
      record: hop.record,
      parent: hop.parent,
      kind: hop.kind,
      step: hop.step,
      model: hop.model,
      version: hop.version,
      time: this.#wall + (hop.start - this.#t0),
      startMs: hop.start - this.#t0,
      durationMs: performance.now() - hop.start,
      inputs,
      outputs: hop.outputs,
      responses: hop.responses,
      responsesDropped: hop.responsesDropped,
      parameters: req?.parameters,
      requestedOutputs: req ? (req.outputs?.map((r) => r.name) ?? undefined) : undefined,
      error: e ? { message: e.message, code: e.code } : undefined,
      cancelled,
      sampled: this.sampled,
      bytes: heldBytes(inputs) + heldBytes(hop.outputs) + (hop.responses ? hop.responses.reduce((n, r) => n + heldBytes(r), 0) : 0),
    };
  }
}

export class Hop implements CaptureRecord {
  readonly #rc: RequestCapture;
  readonly record: number;
  readonly parent: number | undefined;
  readonly kind: 'request' | CaptureKind;
  readonly step: string | undefined;
  readonly model: string;
  readonly start: number;
  readonly #inputs: readonly Tensor[];
  #snap: SnapTensor[] | undefined;
  #budget: { left: number } | undefined;
  #done = false;
  #faulted = false;
  version: string | undefined;
  /** Set on the root: the request's parameters and requested outputs go into its record. */
  request: InferenceRequest | undefined;
  outputs: SnapTensor[] | undefined;
  responses: SnapTensor[][] | undefined;
  responsesDropped = 0;

  constructor(rc: RequestCapture, record: number, parent: number | undefined, kind: 'request' | CaptureKind, step: string | undefined, model: string, inputs: readonly Tensor[], start: number) {
    this.#rc = rc;
    this.record = record;
    this.parent = parent;
    this.kind = kind;
    this.step = step;
    this.model = model;
    this.#inputs = inputs;
    this.start = start;
  }

  open(kind: CaptureKind, step: string, model: string, inputs: readonly Tensor[]): CaptureRecord {
    return this.#rc.open(this.record, kind, step, model, inputs);
  }

  /** The inputs' snapshot, taken once; a step's are taken when it ends (a map adds its `over` late). */
  snapshotInputs(): SnapTensor[] {
    return (this.#snap ??= snapshotTensors(this.#inputs, this.#budget ??= this.#rc.budget(), this.#rc.redact, this.#rc.taken));
  }

  respond(outputs: readonly Tensor[], version?: string): void {
    if (this.#done || this.#faulted) return;
    if (version) this.version = version;
    if (!this.#rc.sampled || outputs.length === 0) return;
    try {
      // Inputs first, so they have the first claim on the byte budget.
      this.snapshotInputs();
      const snap = snapshotTensors(outputs, this.#budget!, this.#rc.redact, this.#rc.taken);
      if (this.outputs === undefined) this.outputs = snap;
      else if ((this.responses ??= [this.outputs]).length < MAX_RESPONSES) {
        this.responses.push(snap);
        this.outputs = snap;
      } else this.responsesDropped++;
    } catch {
      this.#faulted = true; // a record that cannot be taken is dropped, counted when it ends
    }
  }

  end(error?: unknown): void {
    this.#settle(error, false);
  }

  cancel(): void {
    this.#settle(undefined, true);
  }

  #settle(error: unknown, cancelled: boolean): void {
    if (this.#done) return;
    this.#done = true;
    try {
      if (this.#faulted) this.#rc.fault();
      else this.#rc.finish(this, error, cancelled);
    } catch {
      this.#rc.fault();
    }
  }
}
