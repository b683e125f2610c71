import type { CaptureKind, Parameters } from '../inference/index.js';
import { stringifyExact } from '../protocol/index.js';
import { recordTensorJson, type SnapTensor, type WrittenData } from './record-tensor.js';

/** One record as it waits in the queue: a request (record 0) or one hop under it. */
export interface CapturedRecord {
  /** Unique per captured top-level request (request ids may repeat; a replay sends the same ones). */
  readonly capture: string;
  /** The request's id, or `capture` when it came without one. */
  readonly requestId: string;
  readonly record: number;
  readonly parent: number | undefined;
  readonly kind: 'request' | CaptureKind;
  readonly step: string | undefined;
  readonly model: string;
  readonly version: string | undefined;
  /** Wall clock (ms since the epoch) at the hop's start. */
  readonly time: number;
  /** The hop's start, ms after the request's. */
  readonly startMs: number;
  readonly durationMs: number;
  readonly inputs: readonly SnapTensor[];
  readonly outputs: readonly SnapTensor[] | undefined;
  /** A decoupled hop's responses, each its outputs (when it sent more than one). */
  readonly responses: readonly (readonly SnapTensor[])[] | undefined;
  /** Responses past the bound, counted but not kept. */
  readonly responsesDropped: number;
  /** The request's parameters and requested outputs (record 0 only). */
  readonly parameters: Parameters | undefined;
  readonly requestedOutputs: readonly string[] | undefined;
  readonly error: { readonly message: string; readonly code: string } | undefined;
  readonly cancelled: boolean;
  /** false: kept only because the request failed (its failing path, not the whole request). */
  readonly sampled: boolean;
  /** Tensor bytes held (the queue's byte bound counts them). */
  readonly bytes: number;
}

const tensors = (ts: readonly SnapTensor[], w: WrittenData | undefined) => `[${ts.map((t) => recordTensorJson(t, w)).join(',')}]`;

/**
 * How many requests' written data `recordJson` remembers: a request is forgotten when its record 0
 * is written (records are written as hops end, so the request's comes last), or, when that record
 * never comes (dropped), once this many newer requests have been written.
 */
const REMEMBERED = 4096;

/** Data written so far per request, for `ref`s (record-tensor.ts). */
export class WrittenRequests {
  readonly #byCapture = new Map<string, WrittenData>();

  of(r: CapturedRecord): WrittenData {
    let w = this.#byCapture.get(r.capture);
    if (!w) {
      if (this.#byCapture.size >= REMEMBERED) this.#byCapture.delete(this.#byCapture.keys().next().value!);
      this.#byCapture.set(r.capture, (w = { refs: new Map(), next: 0 }));
    }
    return w;
  }

  done(r: CapturedRecord): void {
    if (r.record === 0) this.#byCapture.delete(r.capture);
  }
}

/** The record as one JSON line (no newline); docs/capture-and-replay.md lists the fields. */
export function recordJson(r: CapturedRecord, requests?: WrittenRequests): string {
  const w = requests?.of(r);
  let s = `{"capture":${JSON.stringify(r.capture)},"request_id":${JSON.stringify(r.requestId)},"record":${r.record}`;
  if (r.parent !== undefined) s += `,"parent":${r.parent}`;
  s += `,"kind":"${r.kind}"`;
  if (r.step !== undefined) s += `,"step":${JSON.stringify(r.step)}`;
  s += `,"model":${JSON.stringify(r.model)}`;
  if (r.version !== undefined) s += `,"version":${JSON.stringify(r.version)}`;
  s += `,"time":"${new Date(r.time).toISOString()}","start_ms":${round(r.startMs)},"duration_ms":${round(r.durationMs)}`;
  s += `,"sampled":${r.sampled}`;
  if (r.parameters !== undefined) s += `,"parameters":${stringifyExact(r.parameters)}`;
  if (r.requestedOutputs !== undefined) s += `,"requested_outputs":${JSON.stringify(r.requestedOutputs)}`;
  s += `,"inputs":${tensors(r.inputs, w)}`;
  if (r.outputs !== undefined) s += `,"outputs":${tensors(r.outputs, w)}`;
  if (r.responses !== undefined) s += `,"responses":[${r.responses.map((ts) => tensors(ts, w)).join(',')}]`;
  if (r.responsesDropped > 0) s += `,"responses_dropped":${r.responsesDropped}`;
  if (r.error !== undefined) s += `,"error":${JSON.stringify(r.error.message)},"error_code":${JSON.stringify(r.error.code)}`;
  if (r.cancelled) s += ',"cancelled":true';
  requests?.done(r);
  return s + '}';
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
