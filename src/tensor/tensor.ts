import { Errors } from '../errors.js';
import { isBigIntArray } from './copy-elements.js';
import { STORAGE, elementSize, type DataType, type TypedArray } from './datatype.js';
import { elementCount, formatShape } from './shape.js';

/** BYTES tensors hold one Uint8Array per element (views, not copies, where they come from a buffer). */
export type BytesData = readonly Uint8Array[];
type TensorData = TypedArray | BytesData;

/**
 * A tensor is a plain immutable record. `data` is row-major; for numeric types it is a typed array
 * that may be a view over a larger buffer (a request body, a batch output), never copied unless
 * alignment forces it.
 */
export interface Tensor {
  readonly name: string;
  readonly datatype: DataType;
  readonly shape: readonly number[];
  readonly data: TensorData;
}

const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

export type TensorInit = TensorData | readonly number[] | readonly bigint[] | readonly boolean[] | readonly string[];

/**
 * Make a tensor, checking that the element count matches the shape. Numbers, bigints, booleans and
 * strings are converted into the datatype's storage; typed arrays of the right kind are kept as is.
 */
export function createTensor(name: string, datatype: DataType, shape: readonly number[], data: TensorInit): Tensor {
  const count = elementCount(shape);
  let stored: TensorData;
  if (datatype === 'BYTES') {
    if (!Array.isArray(data)) throw Errors.tensorDataType(name, 'BYTES', 'an array of strings or Uint8Arrays');
    stored = (data as readonly unknown[]).map((v, i) => {
      if (typeof v === 'string') return utf8.encode(v);
      if (v instanceof Uint8Array) return v;
      throw Errors.tensorElementInvalid(name, 'BYTES', i, 'a string or Uint8Array', typeof v);
    });
  } else {
    const Ctor = STORAGE[datatype];
    if (ArrayBuffer.isView(data) && data.constructor === Ctor) {
      stored = data as TypedArray;
    } else if (Array.isArray(data)) {
      const arr = new Ctor(data.length);
      const values = data as readonly unknown[];
      if (isBigIntArray(arr)) {
        for (let i = 0; i < values.length; i++) {
          const v = values[i];
          arr[i] = BigInt(typeof v === 'boolean' ? Number(v) : (v as number | bigint));
        }
      } else {
        // Number() converts as the typed array's own store would, and also takes bigints.
        for (let i = 0; i < values.length; i++) arr[i] = Number(values[i]);
      }
      stored = arr;
    } else {
      throw Errors.tensorDataType(name, datatype, `a ${Ctor.name} or an array of numbers`);
    }
  }
  if (stored.length !== count) {
    throw Errors.tensorElementCount(name, formatShape(shape), count, stored.length);
  }
  return { name, datatype, shape: [...shape], data: stored };
}

/**
 * A tensor over raw little-endian bytes (binary tensor extension, gRPC raw contents, shm).
 * Numeric types become a typed-array view over `bytes` (no copy) unless the offset is misaligned
 * for the element size, in which case one copy is made. BYTES elements are parsed from their
 * 4-byte little-endian length prefixes into subarray views.
 */
export function tensorFromBytes(name: string, datatype: DataType, shape: readonly number[], bytes: Uint8Array): Tensor {
  const count = elementCount(shape);
  if (datatype === 'BYTES') {
    const out: Uint8Array[] = new Array(count);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // Elements are counted as Triton's core counts them (infer_request.cc), so a count that is off
    // is refused in its words: bytes left after the last element start one more.
    let p = 0;
    let i = 0;
    for (; p < bytes.byteLength; i++) {
      if (bytes.byteLength - p < 4) throw Errors.tensorBytesIndicator(name, bytes.byteLength - p, i);
      if (i === count) throw Errors.tensorBytesCount(name, count, i + 1, `${bytes.byteLength - p} bytes follow the last of the shape's ${count} elements`);
      const len = view.getUint32(p, true);
      p += 4;
      if (p + len > bytes.byteLength) throw Errors.tensorBytesMalformed(name, `element ${i} declares ${len} bytes but only ${bytes.byteLength - p} remain`);
      out[i] = bytes.subarray(p, p + len);
      p += len;
    }
    if (i !== count) throw Errors.tensorBytesCount(name, count, i);
    return { name, datatype, shape: [...shape], data: out };
  }
  const size = elementSize(datatype);
  const expected = count * size;
  if (bytes.byteLength !== expected) {
    throw Errors.tensorByteSize(name, bytes.byteLength, datatype, formatShape(shape), expected, count, size);
  }
  const Ctor = STORAGE[datatype];
  let src = bytes;
  // alignment forces the one copy (Uint8Array.prototype.slice: a Buffer's own slice() would not copy)
  if (bytes.byteOffset % size !== 0) src = Uint8Array.prototype.slice.call(bytes);
  return { name, datatype, shape: [...shape], data: new Ctor(src.buffer, src.byteOffset, count) };
}

/** Byte size on the wire (BYTES: sum of 4 + length per element). */
export function tensorByteSize(t: Tensor): number {
  if (t.datatype === 'BYTES') {
    let n = 0;
    for (const e of t.data as BytesData) n += 4 + e.byteLength;
    return n;
  }
  return (t.data as TypedArray).byteLength;
}

/** Raw little-endian bytes: a view for numeric tensors; one encoding pass for BYTES. */
export function tensorToBytes(t: Tensor): Uint8Array {
  if (t.datatype !== 'BYTES') {
    const d = t.data as TypedArray;
    return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  }
  const out = new Uint8Array(tensorByteSize(t));
  const view = new DataView(out.buffer);
  let p = 0;
  for (const e of t.data as BytesData) {
    view.setUint32(p, e.byteLength, true);
    out.set(e, p + 4);
    p += 4 + e.byteLength;
  }
  return out;
}

/** Write a tensor's wire bytes into `dst` at `offset`; returns bytes written. */
export function writeTensorBytes(t: Tensor, dst: Uint8Array, offset: number): number {
  if (t.datatype !== 'BYTES') {
    const d = t.data as TypedArray;
    dst.set(new Uint8Array(d.buffer, d.byteOffset, d.byteLength), offset);
    return d.byteLength;
  }
  const view = new DataView(dst.buffer, dst.byteOffset, dst.byteLength);
  let p = offset;
  for (const e of t.data as BytesData) {
    view.setUint32(p, e.byteLength, true);
    dst.set(e, p + 4);
    p += 4 + e.byteLength;
  }
  return p - offset;
}

/** BYTES elements decoded as UTF-8. */
export function tensorStrings(t: Tensor): string[] {
  if (t.datatype !== 'BYTES') throw Errors.tensorNotBytes(t.name, t.datatype);
  return (t.data as BytesData).map((e) => utf8d.decode(e));
}

/** Same data under another name (no copy). */
export function renameTensor(t: Tensor, name: string): Tensor {
  return t.name === name ? t : { name, datatype: t.datatype, shape: t.shape, data: t.data };
}

/** Same data with another shape of equal element count (no copy). */
export function reshapeTensor(t: Tensor, shape: readonly number[]): Tensor {
  if (elementCount(shape) !== elementCount(t.shape)) {
    throw Errors.tensorReshape(t.name, formatShape(t.shape), formatShape(shape));
  }
  return { name: t.name, datatype: t.datatype, shape: [...shape], data: t.data };
}
