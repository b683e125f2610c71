/**
 * Triton / KServe v2 datatypes and their properties: the one list. The model configuration's
 * `TYPE_*` forms, the config schema's DataType enum and the sandbox's types all derive from it.
 * Listed in model_config.proto's DataType number order (TYPE_BOOL = 1 ... TYPE_STRING = 13,
 * TYPE_BF16 = 14), so `CONFIG_DATATYPES[n]` is the enum value numbered n.
 */
export const DATATYPES = [
  'BOOL', 'UINT8', 'UINT16', 'UINT32', 'UINT64', 'INT8', 'INT16', 'INT32', 'INT64',
  'FP16', 'FP32', 'FP64', 'BYTES', 'BF16',
] as const;

export type DataType = (typeof DATATYPES)[number];

/** The model-configuration spelling of a datatype: `TYPE_FP32`; BYTES is `TYPE_STRING` there. */
type ConfigForm<D extends DataType> = D extends 'BYTES' ? 'TYPE_STRING' : `TYPE_${D}`;

/** model_config.proto's DataType: TYPE_INVALID (0, "not set") and one value per datatype. */
export type ConfigDataType = 'TYPE_INVALID' | ConfigForm<DataType>;

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
};

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
export function toConfigType(dt: DataType): ConfigForm<DataType> {
  return dt === 'BYTES' ? 'TYPE_STRING' : `TYPE_${dt}` as const;
}

/** The DataType enum's values in number order (index = proto enum number). */
export const CONFIG_DATATYPES: readonly ConfigDataType[] = Object.freeze(['TYPE_INVALID', ...DATATYPES.map(toConfigType)]);
