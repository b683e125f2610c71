import * as ort from 'onnxruntime-node';
import { Errors } from '../../src/errors.js';
import { STORAGE, createTensor, type DataType, type Tensor, type TypedArray } from '../../src/tensor/index.js';

/** onnxruntime-node's element type names. */
export type OrtType =
  | 'bool' | 'uint8' | 'uint16' | 'uint32' | 'uint64' | 'int8' | 'int16' | 'int32' | 'int64'
  | 'float16' | 'float32' | 'float64' | 'string';

/**
 * Triton datatype -> ORT type. BF16 has no entry: onnxruntime-node has no JS tensor type for it
 * ("Unsupported data type: 16"), so a model using it fails at load with a clear message.
 */
const TO_ORT: Partial<Record<DataType, OrtType>> = {
  BOOL: 'bool', UINT8: 'uint8', UINT16: 'uint16', UINT32: 'uint32', UINT64: 'uint64',
  INT8: 'int8', INT16: 'int16', INT32: 'int32', INT64: 'int64',
  FP16: 'float16', FP32: 'float32', FP64: 'float64', BYTES: 'string',
};
const FROM_ORT = new Map<string, DataType>(Object.entries(TO_ORT).map(([k, v]) => [v, k as DataType]));

export function ortTypeOf(dt: DataType): OrtType | undefined {
  return TO_ORT[dt];
}

export function dataTypeOfOrt(t: string): DataType | undefined {
  return FROM_ORT.get(t);
}

const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

/** A tensor in the form both ort.Tensor and a worker message accept: numeric data stays a typed array. */
export interface PlainTensor {
  readonly name: string;
  readonly type: OrtType;
  readonly dims: readonly number[];
  readonly data: TypedArray | string[];
}

/**
 * Tensor -> plain ORT form. Numeric data is the same view (ORT reads the view's offset and length,
 * so no copy); FP16 stays raw 16-bit words in a Uint16Array, BOOL one byte per element. BYTES
 * elements are decoded to strings: ORT string tensors hold std::string, so this copy is unavoidable
 * (and bytes that are not UTF-8 would be replaced).
 */
export function toPlain(t: Tensor): PlainTensor {
  const type = TO_ORT[t.datatype];
  if (!type) throw Errors.ortDatatypeUnsupported(t.name, t.datatype);
  const data = t.datatype === 'BYTES' ? bytesToStrings(t) : (t.data as TypedArray);
  return { name: t.name, type, dims: t.shape, data };
}

/**
 * onnxruntime-node cuts a string tensor element at its first NUL (it goes through a C string), so
 * such an element is refused with a clear error instead of being silently truncated.
 */
function bytesToStrings(t: Tensor): string[] {
  return (t.data as readonly Uint8Array[]).map((e, i) => {
    if (e.indexOf(0) !== -1) {
      throw Errors.ortStringNul(t.name, i);
    }
    return utf8d.decode(e);
  });
}

export function toOrtTensor(t: Tensor): ort.Tensor {
  return ortTensorOf(toPlain(t));
}

/**
 * Plain form -> ort.Tensor, numeric data as the same view. FP16 is built as a uint16 tensor over
 * the raw words and then typed float16: where the runtime has Float16Array (Node 24),
 * onnxruntime-common would view the words as one, and onnxruntime-node's binding (1.30) reads a
 * Float16Array as 0 bytes ("not enough space: expected N, got 0"); a Uint16Array it reads.
 */
export function ortTensorOf(p: PlainTensor): ort.Tensor {
  if (p.type !== 'float16') return new ort.Tensor(p.type as 'float32', p.data as Float32Array, p.dims);
  const t = new ort.Tensor('uint16', p.data as Uint16Array, p.dims);
  Object.defineProperty(t, 'type', { value: 'float16' });
  return t;
}

/** Plain ORT form -> Tensor, keeping numeric data as a view (no copy). */
export function fromPlain(p: PlainTensor): Tensor {
  const dt = FROM_ORT.get(p.type);
  if (!dt) throw Errors.ortOutputType(p.name, String(p.type));
  if (dt === 'BYTES') {
    return { name: p.name, datatype: dt, shape: [...p.dims], data: (p.data as string[]).map((s) => utf8.encode(s)) };
  }
  const want = STORAGE[dt];
  // ORT hands back the storage we use (Uint16Array for float16, Uint8Array for bool), except that
  // float16 comes as a Float16Array where the runtime has one (Node 24): the same words, so they
  // are viewed as raw words again, no copy (its values are numbers and would not survive Array.from).
  if (p.data.constructor === want) return { name: p.name, datatype: dt, shape: [...p.dims], data: p.data as TypedArray };
  if (dt === 'FP16' && ArrayBuffer.isView(p.data) && p.data.BYTES_PER_ELEMENT === 2) {
    return { name: p.name, datatype: dt, shape: [...p.dims], data: new Uint16Array(p.data.buffer, p.data.byteOffset, p.data.length) };
  }
  return createTensor(p.name, dt, p.dims, Array.from(p.data as ArrayLike<number>));
}

export function fromOrtTensor(name: string, t: ort.Tensor): Tensor {
  return fromPlain({ name, type: t.type as OrtType, dims: t.dims, data: t.data as TypedArray | string[] });
}
