/**
 * Reading tensor elements as condition values. Numbers are JS numbers: INT64/UINT64 elements past
 * 2^53 are rounded to the nearest double (a condition compares magnitudes, not ids); FP16/BF16
 * travel as raw 16-bit words and are widened here.
 */
import { bf16ToNumber, halfToNumber, type BytesData, type Tensor } from '../../tensor/index.js';

const utf8 = new TextDecoder();

export function bytesAt(t: Tensor, i: number): string {
  const b = (t.data as BytesData)[i]!;
  // Short ASCII (labels, language codes) is built directly: TextDecoder's call costs ~150 ns.
  if (b.length <= 16) {
    let s = '';
    for (let j = 0; j < b.length; j++) {
      const c = b[j]!;
      if (c >= 0x80) return utf8.decode(b);
      s += String.fromCharCode(c);
    }
    return s;
  }
  return utf8.decode(b);
}

/** Element i of a numeric or BOOL tensor as a number (BOOL: 0/1). */
export function numberAt(t: Tensor, i: number): number {
  const v = (t.data as ArrayLike<number | bigint>)[i]!;
  if (typeof v === 'number') {
    if (t.datatype === 'FP16') return halfToNumber(v);
    if (t.datatype === 'BF16') return bf16ToNumber(v);
    if (t.datatype === 'BOOL') return v === 0 ? 0 : 1;
    return v;
  }
  return Number(v);
}

/** True when `data[i]` already is the element's number (no widening or conversion to do). */
export function isPlainNumeric(t: Tensor): boolean {
  const d = t.datatype;
  return d !== 'BYTES' && d !== 'FP16' && d !== 'BF16' && d !== 'BOOL' && d !== 'INT64' && d !== 'UINT64';
}

/** Element i as the condition value its datatype reads as: string, bool or number. */
export function valueAt(t: Tensor, i: number): string | boolean | number {
  if (t.datatype === 'BYTES') return bytesAt(t, i);
  if (t.datatype === 'BOOL') return (t.data as Uint8Array)[i] !== 0;
  return numberAt(t, i);
}
