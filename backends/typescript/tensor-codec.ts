import { Errors } from '../../src/errors.js';
import {
  STORAGE, createTensor, elementCount, isDataType, tensorFromBytes, tensorToBytes, type Tensor, type TypedArray,
} from '../../src/tensor/index.js';
import type { WireTensor } from './bls/wire.js';

/**
 * Host tensor -> what crosses into the isolate. isolated-vm copies a typed array's whole backing
 * buffer, so a view over part of a larger buffer (a request body) is sliced first: the tensor's own
 * bytes cross, once.
 */
export function tensorToWire(t: Tensor): WireTensor {
  if (t.datatype === 'BYTES') return { name: t.name, datatype: t.datatype, shape: t.shape as number[], data: tensorToBytes(t) };
  const d = t.data as TypedArray;
  const whole = d.byteOffset === 0 && d.byteLength === d.buffer.byteLength && !(d.buffer instanceof SharedArrayBuffer);
  return { name: t.name, datatype: t.datatype, shape: t.shape as number[], data: whole ? d : d.slice() };
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
