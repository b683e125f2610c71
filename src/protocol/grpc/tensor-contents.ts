import { Errors } from '../../errors.js';
import { createTensor, elementCount, elementSize, formatShape, type DataType, type Tensor, type TypedArray } from '../../tensor/index.js';
import type { InferTensorContentsMsg } from './messages.js';

type ContentsField = keyof InferTensorContentsMsg;

/** Which InferTensorContents field carries each datatype (FP16 and BF16 have none). */
export const CONTENTS_FIELD: Readonly<Record<DataType, ContentsField | undefined>> = {
  BOOL: 'bool_contents',
  INT8: 'int_contents', INT16: 'int_contents', INT32: 'int_contents', INT64: 'int64_contents',
  UINT8: 'uint_contents', UINT16: 'uint_contents', UINT32: 'uint_contents', UINT64: 'uint64_contents',
  FP32: 'fp32_contents', FP64: 'fp64_contents', BYTES: 'bytes_contents',
  FP16: undefined, BF16: undefined,
};

const FIELDS = Object.keys({
  bool_contents: 0, int_contents: 0, int64_contents: 0, uint_contents: 0, uint64_contents: 0,
  fp32_contents: 0, fp64_contents: 0, bytes_contents: 0,
} satisfies Record<ContentsField, 0>) as ContentsField[];

/** True when any typed field holds elements. */
export function hasContents(c: InferTensorContentsMsg | null | undefined): c is InferTensorContentsMsg {
  if (!c) return false;
  for (const f of FIELDS) if ((c[f]?.length ?? 0) > 0) return true;
  return false;
}

/**
 * Datatypes narrower than the field that carries them (int_contents and uint_contents are 32-bit):
 * a value past the datatype's range is refused, not wrapped (300 as INT8 would become 44).
 */
const NARROW: Partial<Record<DataType, readonly [number, number]>> = {
  INT8: [-128, 127], INT16: [-32768, 32767], UINT8: [0, 255], UINT16: [0, 65535],
};

/**
 * A tensor from typed contents (the slow path: one conversion per element). Checks that the data
 * sits in the field matching the datatype, that each value fits the datatype and that the element
 * count matches the shape.
 */
export function tensorFromContents(name: string, datatype: DataType, shape: readonly number[], contents: InferTensorContentsMsg): Tensor {
  const field = CONTENTS_FIELD[datatype];
  for (const f of FIELDS) {
    if (f !== field && (contents[f]?.length ?? 0) > 0) {
      throw Errors.grpcContentsWrongField(name, datatype, field, f);
    }
  }
  const values = contents[field!] ?? [];
  // Triton's core counts what the contents hold against the shape (bytes, or BYTES elements).
  const count = elementCount(shape);
  if (values.length !== count) {
    if (datatype === 'BYTES') throw Errors.tensorBytesCount(name, count, values.length, `bytes_contents has ${values.length} values for shape ${formatShape(shape)}`);
    throw Errors.grpcContentsCount(name, datatype, formatShape(shape), count, values.length, field!, elementSize(datatype));
  }
  switch (datatype) {
    case 'BOOL': return createTensor(name, datatype, shape, Uint8Array.from(values as boolean[], (b) => (b ? 1 : 0)));
    case 'INT64': return createTensor(name, datatype, shape, BigInt64Array.from(values as (string | number)[], (v) => BigInt(v)));
    case 'UINT64': return createTensor(name, datatype, shape, BigUint64Array.from(values as (string | number)[], (v) => BigInt(v)));
    case 'BYTES': return createTensor(name, datatype, shape, values as Uint8Array[]);
    default: {
      const range = NARROW[datatype];
      if (range) {
        const [lo, hi] = range;
        const nums = values as number[];
        for (let i = 0; i < nums.length; i++) {
          const v = nums[i]!;
          if (v < lo || v > hi) throw Errors.tensorElementRange(name, i, String(v), `${datatype} [${lo}, ${hi}] (${field})`);
        }
      }
      return createTensor(name, datatype, shape, values as number[]);
    }
  }
}

/** Typed contents for a tensor (clients and tests; the server answers with raw contents). */
export function tensorToContents(t: Tensor): InferTensorContentsMsg {
  const field = CONTENTS_FIELD[t.datatype];
  if (!field) throw Errors.grpcContentsNoField(t.name, t.datatype);
  if (t.datatype === 'BYTES') return { bytes_contents: [...(t.data as readonly Uint8Array[])] };
  const d = t.data as TypedArray;
  if (t.datatype === 'BOOL') return { bool_contents: Array.from(d as Uint8Array, (v) => v !== 0) };
  if (d instanceof BigInt64Array || d instanceof BigUint64Array) {
    return { [field]: Array.from(d as ArrayLike<bigint>, (v) => v.toString()) };
  }
  return { [field]: Array.from(d as ArrayLike<number>) };
}
