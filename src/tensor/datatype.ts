/** Triton / KServe v2 datatypes and their properties. */
export const DATATYPES = [
  'BOOL', 'UINT8', 'UINT16', 'UINT32', 'UINT64', 'INT8', 'INT16', 'INT32', 'INT64',
  'FP16', 'FP32', 'FP64', 'BF16', 'BYTES',
] as const;

export type DataType = (typeof DATATYPES)[number];

export type TypedArray =
  | Uint8Array | Uint16Array | Uint32Array | BigUint64Array
  | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Float32Array | Float64Array;

type TypedArrayCtor = {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): TypedArray;
  new (length: number): TypedArray;
  readonly BYTES_PER_ELEMENT: number;
};

/**
 * Storage per datatype. FP16 and BF16 travel as raw 16-bit words (Uint16Array): JSON cannot
 * carry them well and no arithmetic happens on them in the server. BOOL is one byte per element.
 */
export const STORAGE: Readonly<Record<Exclude<DataType, 'BYTES'>, TypedArrayCtor>> = {
  BOOL: Uint8Array, UINT8: Uint8Array, UINT16: Uint16Array, UINT32: Uint32Array, UINT64: BigUint64Array,
  INT8: Int8Array, INT16: Int16Array, INT32: Int32Array, INT64: BigInt64Array,
  FP16: Uint16Array, FP32: Float32Array, FP64: Float64Array, BF16: Uint16Array,
} as unknown as Record<Exclude<DataType, 'BYTES'>, TypedArrayCtor>;

/** Bytes per element; 0 for BYTES (variable length). */
export function elementSize(dt: DataType): number {
  return dt === 'BYTES' ? 0 : STORAGE[dt].BYTES_PER_ELEMENT;
}

const SET = new Set<string>(DATATYPES);
export function isDataType(s: unknown): s is DataType {
  return typeof s === 'string' && SET.has(s);
}

/** `TYPE_FP32` (model config) -> `FP32` (wire). `TYPE_STRING` is `BYTES`. */
export function fromConfigType(t: string): DataType | undefined {
  if (t === 'TYPE_STRING') return 'BYTES';
  if (!t.startsWith('TYPE_')) return undefined;
  const dt = t.slice(5);
  return isDataType(dt) && dt !== 'BYTES' ? dt : undefined;
}

/** `FP32` -> `TYPE_FP32`; `BYTES` -> `TYPE_STRING`. */
export function toConfigType(dt: DataType): string {
  return dt === 'BYTES' ? 'TYPE_STRING' : `TYPE_${dt}`;
}
