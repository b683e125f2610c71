import type { Parameters, ParamValue } from '../inference/index.js';
import { tensorByteSize, tensorFromBytes, writeTensorBytes, type DataType, type Tensor } from '../tensor/index.js';
import type { CachedResponse } from './response-cache.js';

interface OutputMeta { name: string; datatype: DataType; shape: readonly number[]; offset: number; bytes: number }

/**
 * A response copied into one buffer: the cache owns its bytes (a response's tensors may view a
 * batch output or a buffer a backend recycles), and its size is what the budget counts. Offsets are
 * 8-byte aligned so every output reads back as a typed-array view without a copy.
 */
export interface PackedResponse {
  readonly outputs: readonly OutputMeta[];
  readonly parameters?: readonly [string, 'string' | 'number' | 'boolean' | 'bigint', string][];
  readonly data: Uint8Array;
}

const align8 = (n: number) => (n + 7) & ~7;

export function packResponse(r: CachedResponse): PackedResponse {
  const outputs: OutputMeta[] = [];
  let size = 0;
  for (const t of r.outputs) {
    const bytes = tensorByteSize(t);
    outputs.push({ name: t.name, datatype: t.datatype, shape: [...t.shape], offset: size, bytes });
    size = align8(size + bytes);
  }
  const data = new Uint8Array(size);
  r.outputs.forEach((t, i) => writeTensorBytes(t, data, outputs[i]!.offset));
  const p: PackedResponse = { outputs, data };
  if (r.parameters && Object.keys(r.parameters).length) {
    return { ...p, parameters: Object.entries(r.parameters).map(([k, v]) => [k, typeof v as 'string', String(v)]) };
  }
  return p;
}

export function unpackResponse(p: PackedResponse): CachedResponse {
  const outputs = p.outputs.map((o) => tensorFromBytes(o.name, o.datatype, o.shape, p.data.subarray(o.offset, o.offset + o.bytes)));
  if (!p.parameters) return { outputs };
  const parameters: Parameters = {};
  for (const [k, type, v] of p.parameters) parameters[k] = paramValue(type, v);
  return { outputs, parameters };
}

function paramValue(type: string, v: string): ParamValue {
  if (type === 'number') return Number(v);
  if (type === 'boolean') return v === 'true';
  if (type === 'bigint') return BigInt(v);
  return v;
}

/** Bookkeeping per entry besides its bytes: the key, the map slot and the tensor records (measured order of magnitude, not exact). */
const ENTRY_OVERHEAD = 256;
const OUTPUT_OVERHEAD = 128;

/** The bytes an entry is charged against the cache budget. */
export function packedSize(key: string, p: PackedResponse): number {
  let n = ENTRY_OVERHEAD + key.length + p.data.byteLength;
  for (const o of p.outputs) n += OUTPUT_OVERHEAD + o.name.length + 8 * o.shape.length;
  return n;
}

/** One self-describing buffer (for Redis): a 4-byte header length, the JSON header, the data. */
export function encodePacked(p: PackedResponse): Buffer {
  const header = Buffer.from(JSON.stringify({ o: p.outputs, p: p.parameters ?? null }));
  const out = Buffer.allocUnsafe(4 + header.byteLength + p.data.byteLength);
  out.writeUInt32LE(header.byteLength, 0);
  header.copy(out, 4);
  out.set(p.data, 4 + header.byteLength);
  return out;
}

/** The inverse of encodePacked; undefined for a value this server did not write. */
export function decodePacked(b: Uint8Array): PackedResponse | undefined {
  try {
    const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    const len = buf.readUInt32LE(0);
    const header = JSON.parse(buf.subarray(4, 4 + len).toString('utf8')) as { o: OutputMeta[]; p: PackedResponse['parameters'] | null };
    // A fresh, aligned copy (a plain Uint8Array, not a Buffer): the data starts at 4 + len, rarely a multiple of 8.
    const data = new Uint8Array(buf.subarray(4 + len));
    return header.p ? { outputs: header.o, parameters: header.p, data } : { outputs: header.o, data };
  } catch {
    return undefined;
  }
}
