import { Errors } from '../errors.js';
import { copyElements } from './copy-elements.js';
import { STORAGE, type TypedArray } from './datatype.js';
import { elementCount, formatShape } from './shape.js';
import type { BytesData, Tensor } from './tensor.js';

/**
 * Concatenate tensors along dimension 0 with one copy each into a new batch buffer. All parts must
 * agree on datatype and on every dimension but the first.
 */
export function concatBatch(parts: readonly Tensor[], name = parts[0]?.name ?? ''): Tensor {
  if (parts.length === 0) throw Errors.batchEmpty();
  const first = parts[0]!;
  if (parts.length === 1) return first.name === name ? first : { ...first, name };
  const inner = first.shape.slice(1);
  let rows = 0;
  for (const p of parts) {
    if (p.datatype !== first.datatype || p.shape.length !== first.shape.length || p.shape.slice(1).some((d, i) => d !== inner[i])) {
      throw Errors.batchTensorMismatch(name, `${p.datatype} ${formatShape(p.shape)}`, `${first.datatype} ${formatShape(first.shape)}`);
    }
    rows += p.shape[0]!;
  }
  const shape = [rows, ...inner];
  if (first.datatype === 'BYTES') {
    const out: Uint8Array[] = [];
    for (const p of parts) for (const e of p.data as BytesData) out.push(e);
    return { name, datatype: 'BYTES', shape, data: out };
  }
  const Ctor = STORAGE[first.datatype];
  const out = new Ctor(elementCount(shape)) as TypedArray;
  let off = 0;
  for (const p of parts) {
    const d = p.data as TypedArray;
    copyElements(out, d, off);
    off += d.length;
  }
  return { name, datatype: first.datatype, shape, data: out };
}

/** Rows [start, start+count) of a batch tensor, as a view (no copy). */
export function sliceBatch(t: Tensor, start: number, count: number): Tensor {
  const rows = t.shape[0] ?? 0;
  if (start === 0 && count === rows) return t;
  const inner = t.shape.slice(1);
  const per = elementCount(inner);
  const shape = [count, ...inner];
  if (t.datatype === 'BYTES') {
    return { name: t.name, datatype: t.datatype, shape, data: (t.data as BytesData).slice(start * per, (start + count) * per) };
  }
  const d = t.data as TypedArray;
  return { name: t.name, datatype: t.datatype, shape, data: d.subarray(start * per, (start + count) * per) as TypedArray };
}
