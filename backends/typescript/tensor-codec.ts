import { Errors } from '../../src/errors.js';
import {
  STORAGE, createTensor, elementCount, isDataType, tensorFromBytes, tensorToBytes, type Tensor, type TypedArray,
} from '../../src/tensor/index.js';
import type { WireRequest, WireResponse, WireTensor } from './bls/wire.js';

/**
 * Host tensor -> wire tensor. Numeric data stays a view of the tensor's own storage: the scratch
 * lane copies just its bytes; the clone lane makes it whole first (`cloneableRequest`).
 */
export function tensorToWire(t: Tensor): WireTensor {
  if (t.datatype === 'BYTES') return { name: t.name, datatype: t.datatype, shape: t.shape as number[], data: tensorToBytes(t) };
  return { name: t.name, datatype: t.datatype, shape: t.shape as number[], data: t.data as TypedArray };
}

/**
 * isolated-vm clones a typed array's whole backing buffer, and would share a SharedArrayBuffer (a
 * shared-memory region) with the script, so a view over part of a larger buffer (a request body) or
 * over shared memory is sliced first: the tensor's own bytes cross, once, and nothing is shared.
 */
function cloneable(w: WireTensor): WireTensor {
  const d = w.data as TypedArray;
  const whole = d.byteOffset === 0 && d.byteLength === d.buffer.byteLength && !(d.buffer instanceof SharedArrayBuffer);
  return whole ? w : { ...w, data: d.slice() };
}

export function cloneableRequest(r: WireRequest): WireRequest {
  return { ...r, inputs: r.inputs.map(cloneable) };
}

export function cloneableResponse(r: WireResponse): WireResponse {
  return { ...r, outputs: r.outputs.map(cloneable) };
}

/** What the script produced -> a host tensor, checked (the script is not trusted to be consistent). */
export function tensorFromWire(model: string, w: WireTensor, where: string): Tensor {
  if (!w || typeof w.name !== 'string') throw Errors.scriptError(model, `${where}: not a tensor`);
  if (!isDataType(w.datatype)) throw Errors.scriptError(model, `${where}, tensor '${w.name}': invalid datatype '${String(w.datatype)}'`);
  const shape = w.shape;
  if (!Array.isArray(shape) || shape.some((d) => !Number.isInteger(d) || d < 0)) {
    throw Errors.scriptError(model, `${where}, tensor '${w.name}': invalid shape ${JSON.stringify(shape)}`);
  }
  try {
    if (w.datatype === 'BYTES') return tensorFromBytes(w.name, 'BYTES', shape, w.data as Uint8Array);
    const C = STORAGE[w.datatype];
    if (!(w.data instanceof C) || (w.data as TypedArray).length !== elementCount(shape)) {
      throw Errors.scriptError(model, `${where}, tensor '${w.name}': ${w.datatype} ${JSON.stringify(shape)} needs a ${C.name} of ${elementCount(shape)} elements`);
    }
    return createTensor(w.name, w.datatype, shape, w.data as TypedArray);
  } catch (e) {
    throw Errors.scriptError.is(e) ? e : Errors.scriptError(model, `${where}: ${(e as Error).message}`);
  }
}
