import type { PlanReturnOutput, PlanTensor } from '../pipeline/index.js';
import { STORAGE, renameTensor, type Tensor, type TypedArray } from '../tensor/index.js';
import { SKIPPED, type ScopeValue } from './tensor-scope.js';

/**
 * The outputs a `return` emits: those of `ret` the client asked for (`wanted`), in the order of the
 * pipeline's outputs. A literal of a batching pipeline gets a leading dim of `batch` (the request's
 * batch size), its value repeated, as the output's config dims promise.
 */
export function returnOutputs(
  ret: readonly PlanReturnOutput[], wanted: readonly PlanTensor[], lookup: (name: string) => ScopeValue | undefined, batch: number | undefined,
): Tensor[] {
  const out: Tensor[] = [];
  for (const o of wanted) {
    const r = ret.find((x) => x.name === o.name);
    if (!r) continue;
    if (r.literal) out.push(batch === undefined ? renameTensor(r.literal, o.name) : repeatRows(r.literal, o.name, batch));
    else if (r.tensor !== undefined) {
      const t = lookup(r.tensor);
      if (t && t !== SKIPPED) out.push(renameTensor(t, o.name));
    }
  }
  return out;
}

function repeatRows(t: Tensor, name: string, rows: number): Tensor {
  const shape = [rows, ...t.shape];
  if (t.datatype === 'BYTES') {
    const one = t.data as readonly Uint8Array[];
    const data: Uint8Array[] = [];
    for (let r = 0; r < rows; r++) data.push(...one);
    return { name, datatype: t.datatype, shape, data };
  }
  const one = t.data as TypedArray;
  const data = new STORAGE[t.datatype](one.length * rows) as TypedArray;
  for (let r = 0; r < rows; r++) (data as Float32Array).set(one as Float32Array, r * one.length);
  return { name, datatype: t.datatype, shape, data };
}
