import { Errors } from '../errors.js';
import type { TypedArray } from './datatype.js';

/** The 64-bit integer storages: their elements are bigints, every other TypedArray's are numbers. */
export type BigIntArray = BigInt64Array | BigUint64Array;

export function isBigIntArray(a: TypedArray): a is BigIntArray {
  return a instanceof BigInt64Array || a instanceof BigUint64Array;
}

/**
 * `dst.set(src, offset)` for any two storages of one element kind. TypeScript cannot call `set` on
 * the TypedArray union (bigint and number overloads), so the kinds are told apart first; a mix
 * would throw in `set` itself, and only a caller that mixed datatypes can reach it.
 */
export function copyElements(dst: TypedArray, src: TypedArray, offset: number): void {
  if (isBigIntArray(dst)) {
    if (isBigIntArray(src)) return dst.set(src, offset);
  } else if (!isBigIntArray(src)) {
    return dst.set(src, offset);
  }
  throw Errors.internal(`cannot copy ${src.constructor.name} elements into a ${dst.constructor.name}: one holds bigints, the other numbers`);
}
