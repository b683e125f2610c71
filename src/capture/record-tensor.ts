/**
 * Tensors in capture records. Taken (`snapshotTensors`) while the request runs, straight into the
 * text a record line holds: that text is the copy (a tensor may view a request body, a batch
 * buffer or a client's shared memory that is reused once the request is answered), and it lives on
 * the JS heap. Copying each tensor into a new typed array first cost an ArrayBuffer allocation per
 * tensor, which on the langid pipeline's tensors was the largest part of capture's cost; turning
 * floats into decimal text cost a string per element. Past the record's byte budget, or when
 * redacted, only shape, datatype and a SHA-256 of the wire bytes are kept (hashed here, so nothing
 * large waits in the queue). BYTES elements are JSON strings when UTF-8 and `{"b64": ...}`
 * otherwise (every line stays valid UTF-8 JSON); numbers are their little-endian bytes in base64
 * (`data_b64`), exact (NaN payloads, -0). Data two records of a request share (a step's output is
 * the next step's input, a pipeline's input its first step's) is written once: the first record
 * written carries it with a `ref` number, later ones only the `ref` (writing langid's tensors twice
 * was about half of what capture wrote, and writing is most of what it costs).
 */
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import {
  createTensor, elementCount, releaseExclusive, tensorByteSize, tensorFromBytes, tensorToBytes,
  type BytesData, type DataType, type Tensor, type TypedArray,
} from '../tensor/index.js';

/** Why a tensor's data is not in a record. `moved`: its buffer went to a worker thread before it could be read. */
type OmittedReason = 'max-bytes' | 'redacted' | 'moved';

interface SnapHead {
  readonly name: string;
  readonly datatype: DataType;
  readonly shape: readonly number[];
}

export interface OmittedTensor extends SnapHead {
  readonly omitted: OmittedReason;
  readonly bytes: number;
  readonly sha256?: string;
}

/** Taken data: its JSON member (`"data":[...]` or `"data_b64":"..."`), one object per data however many tensors share it. */
export interface TakenData {
  readonly text: string;
}

interface TakenTensor extends SnapHead {
  readonly data: TakenData;
}

export type SnapTensor = TakenTensor | OmittedTensor;

export const isOmitted = (t: SnapTensor): t is OmittedTensor => 'omitted' in t;

/** The JSON form of one recorded tensor. */
export interface RecordTensor {
  name: string;
  datatype: DataType;
  shape: number[];
  data?: unknown[];
  data_b64?: string;
  /** Data written once per request: the tensor that carries it, and those that name it, have this number. */
  ref?: number;
  omitted?: OmittedReason;
  bytes?: number;
  sha256?: string;
}

const utf8d = new TextDecoder();

function isMoved(t: Tensor): boolean {
  return t.datatype !== 'BYTES' && (t.data as TypedArray).byteLength === 0 && elementCount(t.shape) > 0;
}

function bytesElementJson(e: Uint8Array): string {
  return isUtf8(e) ? JSON.stringify(utf8d.decode(e)) : `{"b64":"${Buffer.from(e.buffer, e.byteOffset, e.byteLength).toString('base64')}"}`;
}

function dataText(t: Tensor): string {
  if (t.datatype === 'BYTES') return `"data":[${(t.data as BytesData).map(bytesElementJson).join(',')}]`;
  const d = t.data as TypedArray;
  return `"data_b64":"${Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64')}"`;
}

export function sha256Of(t: Tensor): string {
  return createHash('sha256').update(tensorToBytes(t)).digest('hex');
}

/** The budget a record's tensors share, and what it has left. */
export interface ByteBudget { left: number }

/**
 * `tensors` taken within `budget` (spent as it goes); the rest summarised. `taken` maps data
 * already taken for this request to its text: a step's output is the next step's input (the same
 * data under another name), and is taken once.
 */
export function snapshotTensors(tensors: readonly Tensor[], budget: ByteBudget, redact: ReadonlySet<string>, taken?: Map<object, TakenData>): SnapTensor[] {
  const out: SnapTensor[] = new Array(tensors.length);
  for (let i = 0; i < tensors.length; i++) {
    const t = tensors[i]!;
    if (isMoved(t)) { out[i] = { name: t.name, datatype: t.datatype, shape: t.shape, omitted: 'moved', bytes: 0 }; continue; }
    const bytes = tensorByteSize(t);
    if (redact.size > 0 && redact.has(t.name)) out[i] = { name: t.name, datatype: t.datatype, shape: t.shape, omitted: 'redacted', bytes, sha256: sha256Of(t) };
    else if (bytes > budget.left) out[i] = { name: t.name, datatype: t.datatype, shape: t.shape, omitted: 'max-bytes', bytes, sha256: sha256Of(t) };
    else {
      budget.left -= bytes;
      let data = taken?.get(t.data);
      if (data === undefined) {
        data = { text: dataText(t) };
        taken?.set(t.data, data);
      }
      out[i] = { name: t.name, datatype: t.datatype, shape: t.shape, data };
    }
  }
  return out;
}

/** Characters a snapshot holds (what the queue's byte bound counts). */
export function heldBytes(tensors: readonly SnapTensor[] | undefined): number {
  let n = 0;
  if (tensors) for (const t of tensors) if (!isOmitted(t)) n += t.data.text.length;
  return n;
}

/**
 * A captured request's inputs are read after the model ran: a backend must copy them rather than
 * move their buffer to a worker thread (src/tensor/exclusive-buffer.ts).
 */
export function keepReadable(tensors: readonly Tensor[]): void {
  for (const t of tensors) if (ArrayBuffer.isView(t.data)) releaseExclusive(t.data.buffer);
}

/** The data already written for a request, by taken data, and the next number to give. */
export interface WrittenData { readonly refs: Map<TakenData, number>; next: number }

/** One recorded tensor as JSON text; `written` (the request's) makes shared data a reference. */
export function recordTensorJson(t: SnapTensor, written?: WrittenData): string {
  const head = `{"name":${JSON.stringify(t.name)},"datatype":"${t.datatype}","shape":[${t.shape.join(',')}]`;
  if (isOmitted(t)) return `${head},"omitted":"${t.omitted}","bytes":${t.bytes}${t.sha256 ? `,"sha256":"${t.sha256}"` : ''}}`;
  if (!written) return `${head},${t.data.text}}`;
  const ref = written.refs.get(t.data);
  if (ref !== undefined) return `${head},"ref":${ref}}`;
  written.refs.set(t.data, written.next);
  return `${head},"ref":${written.next++},${t.data.text}}`;
}

/**
 * A request's tensors that name data by `ref` get it from the one that carries it. One whose
 * carrier was not kept (dropped at a full queue, trimmed from a stream) stays without data.
 */
export function resolveRefs(tensors: Iterable<RecordTensor>): void {
  const all = [...tensors];
  const carriers = new Map<number, RecordTensor>();
  for (const t of all) if (t.ref !== undefined && (t.data !== undefined || t.data_b64 !== undefined)) carriers.set(t.ref, t);
  for (const t of all) {
    if (t.ref === undefined || t.data !== undefined || t.data_b64 !== undefined) continue;
    const c = carriers.get(t.ref);
    if (c?.data !== undefined) t.data = c.data;
    if (c?.data_b64 !== undefined) t.data_b64 = c.data_b64;
  }
}

/** A recorded tensor back as a tensor; undefined when its data was not recorded. */
export function tensorOfRecord(r: RecordTensor): Tensor | undefined {
  if (r.omitted !== undefined || (r.data === undefined && r.data_b64 === undefined)) return undefined;
  if (r.data_b64 !== undefined) return tensorFromBytes(r.name, r.datatype, r.shape, Buffer.from(r.data_b64, 'base64'));
  const data = r.data ?? [];
  if (r.datatype === 'BYTES') {
    const utf8 = new TextEncoder();
    const bytes = data.map((e): Uint8Array => (typeof e === 'string' ? utf8.encode(e) : Buffer.from(String((e as { b64?: unknown }).b64 ?? ''), 'base64')));
    return createTensor(r.name, 'BYTES', r.shape, bytes);
  }
  // Numbers written as v2 JSON does them (a NaN as null), for records made by hand.
  return createTensor(r.name, r.datatype, r.shape, data.map((v) => (v === null ? NaN : v)) as number[]);
}
