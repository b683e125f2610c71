/**
 * Tensor data <-> the `data` field of v2 JSON. Input data may be nested or flat (row-major);
 * every element is checked against the datatype so a wrong value names its tensor and index
 * instead of silently becoming NaN. INT64/UINT64 accept numbers, or decimal strings when a value
 * is past 2^53. FP16/BF16 inputs must use the binary extension (JSON cannot carry them exactly);
 * FP16/BF16 outputs are widened to numbers, which is exact.
 */
import { isUtf8 } from 'node:buffer';
import { Errors } from '../errors.js';
import { stringifyExact } from './exact-json.js';
import { rawBytesJsonString } from './raw-bytes-json.js';
import {
  STORAGE, bf16ToNumber, elementCount, formatShape, halfToNumber, type DataType, type Tensor, type TypedArray, type BytesData,
} from '../tensor/index.js';

const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

const INT_RANGE: Partial<Record<DataType, [number, number]>> = {
  INT8: [-128, 127], INT16: [-32768, 32767], INT32: [-2147483648, 2147483647],
  UINT8: [0, 255], UINT16: [0, 65535], UINT32: [0, 4294967295],
};

/** The largest finite FP32 (numpy's float32 max); a double rounding past it becomes Infinity. */
const FP32_MAX = 3.4028234663852886e38;
const FLOAT_RANGE = { FP32: `FP32 [${-FP32_MAX}, ${FP32_MAX}]`, FP64: `FP64 [${-Number.MAX_VALUE}, ${Number.MAX_VALUE}]` };

/**
 * A number JSON cannot hold as a double (1e309, a 400-digit integer) arrives as ±Infinity: JSON
 * has no infinity of its own, so that is always an overflow, shown by its side of the range.
 */
function shownNumber(v: number): string {
  if (v === Infinity) return `above ${Number.MAX_VALUE}`;
  if (v === -Infinity) return `below ${-Number.MAX_VALUE}`;
  return String(v);
}

function flatten(data: readonly unknown[]): readonly unknown[] {
  let nested = false;
  for (let i = 0; i < data.length; i++) if (Array.isArray(data[i])) { nested = true; break; }
  if (!nested) return data;
  return (data as unknown[]).flat(Infinity);
}

function toBigInt(name: string, v: unknown, i: number, unsigned: boolean, lossy: boolean): bigint {
  let b: bigint;
  if (typeof v === 'bigint') b = v;
  else if (typeof v === 'number' && Number.isInteger(v)) {
    if (lossy && !Number.isSafeInteger(v)) throw Errors.requestJsonInexact(`tensor '${name}' element ${i}`);
    b = BigInt(v);
  }
  else if (typeof v === 'string' && /^-?\d+$/.test(v)) {
    // More digits than any 64-bit integer has: out of range, without a slow BigInt of a long string.
    const digits = v.length > 21 ? v.replace(/^-?0*/, '').length : 0;
    if (digits > 20) throw Errors.tensorElementRange(name, i, `${v.startsWith('-') ? '-' : ''}${v.slice(v.length - digits, v.length - digits + 12)}... (${digits} digits)`, unsigned ? 'UINT64' : 'INT64');
    b = BigInt(v);
  }
  else if (v === Infinity || v === -Infinity) throw Errors.tensorElementRange(name, i, shownNumber(v), unsigned ? 'UINT64' : 'INT64');
  else throw Errors.tensorElementInvalid(name, undefined, i, 'an integer (a number, or a decimal string past 2^53)', stringifyExact(v));
  if (unsigned ? b < 0n || b > 0xffffffffffffffffn : b < -(2n ** 63n) || b >= 2n ** 63n) {
    throw Errors.tensorElementRange(name, i, String(b), unsigned ? 'UINT64' : 'INT64');
  }
  return b;
}

/**
 * Build a tensor from a JSON `data` value, checking count and every element. `lossy`: the value
 * came from JSON.parse, so an INT64/UINT64 element past 2^53 may have been rounded; meeting one
 * throws requestJsonInexact for the caller to parse the text exactly (src/protocol/exact-json.ts).
 */
export function tensorFromJson(name: string, datatype: DataType, shape: readonly number[], data: unknown, lossy = false): Tensor {
  if (!Array.isArray(data)) throw Errors.tensorDataNotArray(name, data === null ? 'null' : typeof data);
  const flat = flatten(data);
  const count = elementCount(shape);
  if (flat.length !== count) {
    throw Errors.tensorDataCount(name, datatype, formatShape(shape), count, flat.length);
  }
  if (datatype === 'BYTES') {
    const out: Uint8Array[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const v = flat[i];
      if (typeof v !== 'string') throw Errors.tensorElementInvalid(name, 'BYTES', i, 'a string', stringifyExact(v));
      out[i] = utf8.encode(v);
    }
    return { name, datatype, shape: [...shape], data: out };
  }
  if (datatype === 'FP16' || datatype === 'BF16') {
    throw Errors.tensorJsonDatatype(name, datatype);
  }
  const Ctor = STORAGE[datatype];
  const arr = new Ctor(count) as TypedArray;
  if (datatype === 'BOOL') {
    const a = arr as Uint8Array;
    for (let i = 0; i < count; i++) {
      const v = flat[i];
      if (typeof v !== 'boolean') throw Errors.tensorElementInvalid(name, 'BOOL', i, 'true or false', stringifyExact(v));
      a[i] = v ? 1 : 0;
    }
  } else if (datatype === 'INT64' || datatype === 'UINT64') {
    const a = arr as BigInt64Array | BigUint64Array;
    const unsigned = datatype === 'UINT64';
    for (let i = 0; i < count; i++) a[i] = toBigInt(name, flat[i], i, unsigned, lossy);
  } else if (datatype === 'FP32' || datatype === 'FP64') {
    const a = arr as Float32Array | Float64Array;
    for (let i = 0; i < count; i++) {
      const v = flat[i];
      // An integer literal past 2^53 arrives as a bigint (exact-json.ts); as a float it rounds anyway.
      if (typeof v === 'bigint') a[i] = Number(v);
      else if (typeof v !== 'number') throw Errors.tensorElementInvalid(name, datatype, i, 'a number', stringifyExact(v));
      else a[i] = v;
      // JSON holds no infinity, so an infinite element overflowed: past FP64 (1e309), or past FP32
      // once stored (1e39; numpy would make it inf silently). Refused rather than computed with.
      if (!Number.isFinite(a[i]!)) {
        const shown = typeof v === 'bigint' ? (Number.isFinite(Number(v)) ? String(v) : shownNumber(Number(v))) : shownNumber(v as number);
        throw Errors.tensorElementRange(name, i, shown, FLOAT_RANGE[datatype]);
      }
    }
  } else {
    const [lo, hi] = INT_RANGE[datatype]!;
    const a = arr as Int32Array;
    for (let i = 0; i < count; i++) {
      const v = flat[i];
      if (typeof v === 'bigint') throw Errors.tensorElementRange(name, i, String(v), `${datatype} [${lo}, ${hi}]`);
      if (v === Infinity || v === -Infinity) throw Errors.tensorElementRange(name, i, shownNumber(v), `${datatype} [${lo}, ${hi}]`);
      if (typeof v !== 'number' || !Number.isInteger(v)) throw Errors.tensorElementInvalid(name, datatype, i, 'an integer', stringifyExact(v));
      if (v < lo || v > hi) throw Errors.tensorElementRange(name, i, String(v), `${datatype} [${lo}, ${hi}]`);
      a[i] = v;
    }
  }
  return { name, datatype, shape: [...shape], data: arr };
}

const NON_FINITE = /-?Infinity|NaN/;

/** A BYTES element as a JSON string; bytes that are not UTF-8 stay raw (raw-bytes-json.ts). */
export function bytesJsonString(b: Uint8Array): string {
  return isUtf8(b) ? JSON.stringify(utf8d.decode(b)) : rawBytesJsonString(b);
}

/**
 * The JSON text of a tensor's data, flat. Built with `join` rather than JSON.stringify of a copied
 * array (the hot path for small tensors). Non-finite floats become null (JSON has no NaN).
 * INT64/UINT64 print every digit (valid JSON; lossless for clients that parse big integers).
 * BYTES that are not UTF-8 are kept raw as Triton sends them: text holding them must go out
 * through jsonWireBytes.
 */
export function tensorDataJson(t: Tensor): string {
  if (t.datatype === 'BYTES') {
    const d = t.data as BytesData;
    let s = '[';
    for (let i = 0; i < d.length; i++) s += (i ? ',' : '') + bytesJsonString(d[i]!);
    return s + ']';
  }
  if (t.datatype === 'BOOL') {
    const d = t.data as Uint8Array;
    let s = '[';
    for (let i = 0; i < d.length; i++) s += (i ? ',' : '') + (d[i] ? 'true' : 'false');
    return s + ']';
  }
  if (t.datatype === 'FP16' || t.datatype === 'BF16') {
    const conv = t.datatype === 'FP16' ? halfToNumber : bf16ToNumber;
    const nums = Array.from(t.data as Uint16Array, conv);
    return '[' + nums.map((n) => (Number.isFinite(n) ? String(n) : 'null')).join(',') + ']';
  }
  const body = (t.data as TypedArray).join(',');
  if ((t.datatype === 'FP32' || t.datatype === 'FP64') && NON_FINITE.test(body)) {
    return '[' + body.replace(/-?Infinity|NaN/g, 'null') + ']';
  }
  return '[' + body + ']';
}
