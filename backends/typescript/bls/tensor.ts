import type { DataType } from '../../../src/tensor/index.js';
import { ModelError } from './model-error.js';
import { utf8Decode, utf8Encode } from './utf8.js';
import type { WireTensor } from './wire.js';

export type { DataType };

export type TypedArray =
  | Uint8Array | Uint16Array | Uint32Array | BigUint64Array
  | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Float32Array | Float64Array;
export type TensorData = TypedArray | Uint8Array[];
export type TensorInit = TensorData | readonly number[] | readonly bigint[] | readonly boolean[] | readonly string[];

type Ctor = { new (n: number): TypedArray; new (b: ArrayBufferLike, o: number, n: number): TypedArray; BYTES_PER_ELEMENT: number };

/** The same storage rules as the server's tensors (src/tensor/datatype.ts). */
const STORAGE: Record<string, Ctor> = {
  BOOL: Uint8Array, UINT8: Uint8Array, UINT16: Uint16Array, UINT32: Uint32Array, UINT64: BigUint64Array,
  INT8: Int8Array, INT16: Int16Array, INT32: Int32Array, INT64: BigInt64Array,
  FP16: Uint16Array, FP32: Float32Array, FP64: Float64Array, BF16: Uint16Array,
} as unknown as Record<string, Ctor>;

function count(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export class Tensor {
  readonly name: string;
  readonly datatype: DataType;
  readonly shape: readonly number[];
  readonly data: TensorData;

  constructor(name: string, datatype: DataType, shape: readonly number[], data: TensorInit) {
    if (!Array.isArray(shape) || shape.some((d) => !Number.isInteger(d) || d < 0)) {
      throw new ModelError(`tensor '${name}': shape must be an array of non-negative integers, got ${JSON.stringify(shape)}`, 'INVALID_ARG');
    }
    this.name = name;
    this.datatype = datatype;
    this.shape = shape.slice();
    this.data = toStorage(name, datatype, data);
    const n = count(shape);
    if (this.data.length !== n) {
      throw new ModelError(`tensor '${name}': shape [${shape.join(',')}] has ${n} elements but data has ${this.data.length}`, 'INVALID_ARG');
    }
  }

  strings(): string[] {
    if (this.datatype !== 'BYTES') throw new ModelError(`tensor '${this.name}' is ${this.datatype}, not BYTES`, 'INVALID_ARG');
    return (this.data as Uint8Array[]).map((b) => utf8Decode(b));
  }
}

function toStorage(name: string, dt: DataType, data: TensorInit): TensorData {
  if (dt === 'BYTES') {
    if (!Array.isArray(data)) throw new ModelError(`tensor '${name}': BYTES data must be an array of strings or Uint8Arrays`, 'INVALID_ARG');
    return (data as unknown[]).map((v, i) => {
      if (typeof v === 'string') return utf8Encode(v);
      if (v instanceof Uint8Array) return v;
      throw new ModelError(`tensor '${name}': BYTES element ${i} must be a string or Uint8Array, got ${typeof v}`, 'INVALID_ARG');
    });
  }
  const C = STORAGE[dt];
  if (!C) throw new ModelError(`tensor '${name}': invalid datatype '${String(dt)}'`, 'INVALID_ARG');
  if (ArrayBuffer.isView(data) && data.constructor === C) return data as TypedArray;
  if (Array.isArray(data)) {
    const out = new C(data.length);
    const big = out instanceof BigInt64Array || out instanceof BigUint64Array;
    for (let i = 0; i < data.length; i++) {
      const v = data[i] as unknown as number | bigint | boolean;
      (out as unknown as unknown[])[i] = big ? BigInt(typeof v === 'boolean' ? Number(v) : v)
        : typeof v === 'number' ? v : Number(v);
    }
    return out;
  }
  const got = ArrayBuffer.isView(data) ? data.constructor.name : typeof data;
  throw new ModelError(`tensor '${name}': ${dt} data must be a ${C.name} or an array of numbers, got ${got}`, 'INVALID_ARG');
}

/** A host tensor as the script sees it: BYTES unpacked into subarray views (no per-byte copy). */
export function tensorFromWire(w: WireTensor): Tensor {
  let data: TensorData;
  if (w.datatype === 'BYTES') {
    const b = w.data as Uint8Array;
    const n = count(w.shape);
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const out: Uint8Array[] = new Array(n);
    let p = 0;
    for (let i = 0; i < n; i++) {
      const len = view.getUint32(p, true);
      out[i] = b.subarray(p + 4, p + 4 + len);
      p += 4 + len;
    }
    data = out;
  } else {
    data = w.data as TypedArray;
  }
  const t = Object.create(Tensor.prototype) as { -readonly [K in keyof Tensor]: Tensor[K] };
  t.name = w.name;
  t.datatype = w.datatype as DataType;
  t.shape = w.shape;
  t.data = data;
  return t as Tensor;
}

/** A script tensor for the host. Views over part of a buffer are sliced so only the tensor crosses. */
export function tensorToWire(t: Tensor): WireTensor {
  if (!(t instanceof Tensor)) throw new ModelError(`expected a Tensor, got ${t === null ? 'null' : typeof t}`, 'INVALID_ARG');
  if (t.datatype === 'BYTES') {
    const els = t.data as Uint8Array[];
    let size = 0;
    for (const e of els) size += 4 + e.byteLength;
    const out = new Uint8Array(size);
    const view = new DataView(out.buffer);
    let p = 0;
    for (const e of els) {
      view.setUint32(p, e.byteLength, true);
      out.set(e, p + 4);
      p += 4 + e.byteLength;
    }
    return { name: t.name, datatype: t.datatype, shape: t.shape as number[], data: out };
  }
  const d = t.data as TypedArray;
  const whole = d.byteOffset === 0 && d.byteLength === d.buffer.byteLength;
  return { name: t.name, datatype: t.datatype, shape: t.shape as number[], data: whole ? d : d.slice() };
}
