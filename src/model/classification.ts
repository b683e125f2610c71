import { Errors } from '../errors.js';
import type { Tensor, TypedArray } from '../tensor/index.js';

/**
 * Triton's classification extension: replace an output by its top `k` classes per batch row as
 * BYTES "value:index[:label]", highest first.
 */
export function classify(t: Tensor, k: number, batched: boolean, labels?: readonly string[]): Tensor {
  if (t.datatype === 'BYTES' || t.datatype === 'FP16' || t.datatype === 'BF16') {
    throw Errors.classificationDatatype(t.name, t.datatype);
  }
  if (!Number.isInteger(k) || k < 1) throw Errors.classificationCount(t.name, k);
  const data = t.data as TypedArray;
  const rows = batched ? (t.shape[0] ?? 1) : 1;
  const per = rows === 0 ? 0 : data.length / rows;
  const kk = Math.min(k, per);
  const enc = new TextEncoder();
  const out: Uint8Array[] = [];
  for (let r = 0; r < rows; r++) {
    const idx = Array.from({ length: per }, (_, i) => i);
    const v = (i: number) => Number(data[r * per + i]);
    idx.sort((a, b) => v(b) - v(a) || a - b);
    for (let j = 0; j < kk; j++) {
      const i = idx[j]!;
      const label = labels?.[i];
      out.push(enc.encode(`${formatValue(v(i), t.datatype)}:${i}${label ? `:${label}` : ''}`));
    }
  }
  return { name: t.name, datatype: 'BYTES', shape: batched ? [rows, kk] : [kk], data: out };
}

function formatValue(x: number, dt: string): string {
  if (dt === 'FP32' || dt === 'FP64') return x.toFixed(6);
  return String(x);
}
