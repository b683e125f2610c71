/**
 * Tensors in capture records. Taken (`snapshotTensors`) while the request runs: copied, because a
 * tensor may view a request body, a batch buffer or a client's shared memory that is reused once the
 * request is answered; past the record's byte budget, or when redacted, only shape, datatype and a
 * SHA-256 of its wire bytes are kept (hashed here, so nothing large waits in the queue). Written as
 * JSON: numbers as v2 JSON writes them, BYTES elements as strings when UTF-8 and `{"b64": ...}`
 * otherwise (so every line stays valid UTF-8 JSON), FP16/BF16 as raw little-endian bytes in base64.
 */
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { tensorDataJson } from '../protocol/index.js';
import {
  createTensor, elementCount, releaseExclusive, tensorByteSize, tensorFromBytes, tensorToBytes,
  type BytesData, type DataType, type Tensor, type TypedArray,
} from '../tensor/index.js';

/** Why a tensor's data is not in a record. `moved`: its buffer went to a worker thread before it could be read. */
type OmittedReason = 'max-bytes' | 'redacted' | 'moved';

export interface OmittedTensor {
  readonly name: string;
  readonly datatype: DataType;
  readonly shape: readonly number[];
  readonly omitted: OmittedReason;
  readonly bytes: number;
  readonly sha256?: string;
}

export type SnapTensor = Tensor | OmittedTensor;

export const isOmitted = (t: SnapTensor): t is OmittedTensor => 'omitted' in t;

/** The JSON form of one recorded tensor. */
export interface RecordTensor {
  name: string;
  datatype: DataType;
  shape: number[];
  data?: unknown[];
  data_b64?: string;
  omitted?: OmittedReason;
  bytes?: number;
  sha256?: string;
}

const utf8d = new TextDecoder();

function isMoved(t: Tensor): boolean {
  return t.datatype !== 'BYTES' && (t.data as TypedArray).byteLength === 0 && elementCount(t.shape) > 0;
}

function copyOf(t: Tensor): Tensor {
  const data = t.datatype === 'BYTES'
    ? (t.data as BytesData).map((e) => Uint8Array.prototype.slice.call(e))
    : (t.data as TypedArray).slice();
  return { name: t.name, datatype: t.datatype, shape: [...t.shape], data };
}

export function sha256Of(t: Tensor): string {
  return createHash('sha256').update(tensorToBytes(t)).digest('hex');
}

/** The budget a record's tensors share, and what it has left. */
export interface ByteBudget { left: number }

/** Copies of `tensors` within `budget` (spent as it goes); the rest summarised. Never throws on odd data. */
export function snapshotTensors(tensors: readonly Tensor[], budget: ByteBudget, redact: ReadonlySet<string>): SnapTensor[] {
  const out: SnapTensor[] = new Array(tensors.length);
  for (let i = 0; i < tensors.length; i++) {
    const t = tensors[i]!;
    const base = { name: t.name, datatype: t.datatype, shape: [...t.shape] };
    if (isMoved(t)) { out[i] = { ...base, omitted: 'moved', bytes: 0 }; continue; }
    const bytes = tensorByteSize(t);
    if (redact.size > 0 && redact.has(t.name)) out[i] = { ...base, omitted: 'redacted', bytes, sha256: sha256Of(t) };
    else if (bytes > budget.left) out[i] = { ...base, omitted: 'max-bytes', bytes, sha256: sha256Of(t) };
    else {
      budget.left -= bytes;
      out[i] = copyOf(t);
    }
  }
  return out;
}

/** Bytes a snapshot holds (what the queue's byte bound counts). */
export function heldBytes(tensors: readonly SnapTensor[] | undefined): number {
  let n = 0;
  if (tensors) for (const t of tensors) if (!isOmitted(t)) n += tensorByteSize(t);
  return n;
}

/**
 * A captured request's inputs are read after the model ran: a backend must copy them rather than
 * move their buffer to a worker thread (src/tensor/exclusive-buffer.ts).
 */
export function keepReadable(tensors: readonly Tensor[]): void {
  for (const t of tensors) if (ArrayBuffer.isView(t.data)) releaseExclusive(t.data.buffer);
}

function bytesElementJson(e: Uint8Array): string {
  return isUtf8(e) ? JSON.stringify(utf8d.decode(e)) : `{"b64":"${Buffer.from(e.buffer, e.byteOffset, e.byteLength).toString('base64')}"}`;
}

/** One recorded tensor as JSON text. */
export function recordTensorJson(t: SnapTensor): string {
  const head = `{"name":${JSON.stringify(t.name)},"datatype":"${t.datatype}","shape":[${t.shape.join(',')}]`;
  if (isOmitted(t)) return `${head},"omitted":"${t.omitted}","bytes":${t.bytes}${t.sha256 ? `,"sha256":"${t.sha256}"` : ''}}`;
  if (t.datatype === 'BYTES') return `${head},"data":[${(t.data as BytesData).map(bytesElementJson).join(',')}]}`;
  if (t.datatype === 'FP16' || t.datatype === 'BF16') {
    const d = t.data as TypedArray;
    return `${head},"data_b64":"${Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64')}"}`;
  }
  return `${head},"data":${tensorDataJson(t)}}`;
}

/** A recorded tensor back as a tensor; undefined when its data was not recorded. */
export function tensorOfRecord(r: RecordTensor): Tensor | undefined {
  if (r.omitted !== undefined) return undefined;
  if (r.data_b64 !== undefined) return tensorFromBytes(r.name, r.datatype, r.shape, Buffer.from(r.data_b64, 'base64'));
  const data = r.data ?? [];
  if (r.datatype === 'BYTES') {
    const utf8 = new TextEncoder();
    const bytes = data.map((e): Uint8Array => (typeof e === 'string' ? utf8.encode(e) : Buffer.from(String((e as { b64?: unknown }).b64 ?? ''), 'base64')));
    return createTensor(r.name, 'BYTES', r.shape, bytes);
  }
  // JSON has no NaN or infinity: v2 JSON writes them as null.
  return createTensor(r.name, r.datatype, r.shape, data.map((v) => (v === null ? NaN : v)) as number[]);
}
