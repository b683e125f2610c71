/**
 * Captured outputs against a replay's: integers, booleans and strings must be equal; floats may
 * differ by atol + rtol * |captured| (NaN equals NaN), as numpy's isclose. An output whose data was
 * not recorded (past max-bytes, redacted) is compared by its SHA-256, exactly.
 */
import { isUtf8 } from 'node:buffer';
import { sha256Of, tensorOfRecord, type RecordTensor } from '../capture/index.js';
import { bf16ToNumber, halfToNumber, type BytesData, type Tensor, type TypedArray } from '../tensor/index.js';

export interface Tolerance { rtol: number; atol: number }

export interface Difference {
  output: string;
  /** What differs, in words: the first few elements, or the shape, datatype or presence. */
  what: string;
}

const FLOATS = new Set(['FP16', 'BF16', 'FP32', 'FP64']);
const utf8d = new TextDecoder();

function show(v: unknown): string {
  if (v instanceof Uint8Array) return isUtf8(v) ? JSON.stringify(utf8d.decode(v)) : `<${v.length} bytes>`;
  return String(v);
}

function values(t: Tensor): ArrayLike<unknown> {
  if (t.datatype === 'FP16') return Array.from(t.data as Uint16Array, halfToNumber);
  if (t.datatype === 'BF16') return Array.from(t.data as Uint16Array, bf16ToNumber);
  if (t.datatype === 'BOOL') return Array.from(t.data as Uint8Array, (b) => b !== 0);
  return t.datatype === 'BYTES' ? (t.data as BytesData) : (t.data as TypedArray);
}

function same(a: unknown, b: unknown, float: boolean, tol: Tolerance): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
  if (!float) return a === b;
  const x = a as number;
  const y = b as number;
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
  if (x === y) return true; // infinities of one sign
  return Math.abs(x - y) <= tol.atol + tol.rtol * Math.abs(x);
}

/** Differences of one response's outputs; at most `perOutput` elements are named per output. */
export function compareOutputs(expected: readonly RecordTensor[], got: readonly Tensor[], tol: Tolerance, perOutput = 3): Difference[] {
  const out: Difference[] = [];
  for (const e of expected) {
    const g = got.find((t) => t.name === e.name);
    if (!g) { out.push({ output: e.name, what: 'missing from the answer' }); continue; }
    if (g.datatype !== e.datatype) { out.push({ output: e.name, what: `datatype ${e.datatype} captured, ${g.datatype} now` }); continue; }
    if (g.shape.join(',') !== e.shape.join(',')) { out.push({ output: e.name, what: `shape [${e.shape.join(',')}] captured, [${g.shape.join(',')}] now` }); continue; }
    if (e.omitted !== undefined) {
      const now = sha256Of(g);
      if (e.sha256 !== undefined && e.sha256 !== now) out.push({ output: e.name, what: `its data (not recorded: ${e.omitted}) has another SHA-256: ${e.sha256} captured, ${now} now` });
      continue;
    }
    const want = values(tensorOfRecord(e)!);
    const have = values(g);
    const float = FLOATS.has(e.datatype);
    const bad: string[] = [];
    let count = 0;
    for (let i = 0; i < want.length; i++) {
      if (same(want[i], have[i], float, tol)) continue;
      count++;
      if (bad.length < perOutput) bad.push(`[${i}] ${show(want[i])} captured, ${show(have[i])} now`);
    }
    if (count > 0) out.push({ output: e.name, what: `${count} of ${want.length} elements differ: ${bad.join('; ')}${count > bad.length ? '; ...' : ''}` });
  }
  for (const g of got) if (!expected.some((e) => e.name === g.name)) out.push({ output: g.name, what: 'in the answer now, not in the captured one' });
  return out;
}
