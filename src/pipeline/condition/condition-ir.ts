/**
 * The checked form of a condition: every node typed, and every implicit conversion (a tensor read
 * as its one value, a request parameter checked against the type it meets) made an explicit node,
 * so the closure compiler has no type decisions left to make.
 */
import type { ConditionTensorInfo } from './condition-types.js';
import type { ArithOp, CompareOp } from './parse-condition.js';
import type { ConditionFunction } from './condition-functions.js';

export type ScalarType = 'bool' | 'number' | 'string';

/** `dynamic` is a request parameter's value (typed at run time); `error` silences follow-on errors. */
export type Type =
  | ScalarType | 'null' | 'dynamic' | 'error'
  | { readonly list: ScalarType | 'dynamic' | 'empty'; readonly length?: number }
  | { readonly tensor: string; readonly info: ConditionTensorInfo };

export type Ir = { readonly type: Type; readonly offset: number; readonly length: number } & (
  | { readonly k: 'literal'; readonly value: number | string | boolean | null }
  | { readonly k: 'list'; readonly items: readonly Ir[] }
  | { readonly k: 'tensor'; readonly name: string }
  | { readonly k: 'param'; readonly name: string }
  /** A tensor read as its single element. */
  | { readonly k: 'scalar'; readonly arg: Ir; readonly name: string }
  /** A parameter's value checked against `want`; null (missing) passes only when `orNull`. */
  | { readonly k: 'expect'; readonly arg: Ir; readonly want: ScalarType; readonly orNull: boolean; readonly what: string }
  | { readonly k: 'call'; readonly fn: ConditionFunction; readonly arg: Ir }
  /** any()/all() of `tensor op value` compared element by element. */
  | { readonly k: 'elementwise'; readonly all: boolean; readonly op: CompareOp | 'truthy'; readonly tensor: Ir; readonly value?: Ir; readonly flipped: boolean }
  | { readonly k: 'index'; readonly list: Ir; readonly index: Ir }
  | { readonly k: 'not' | 'neg'; readonly arg: Ir }
  | { readonly k: 'logic'; readonly op: 'and' | 'or'; readonly left: Ir; readonly right: Ir }
  | { readonly k: 'compare'; readonly op: CompareOp; readonly left: Ir; readonly right: Ir }
  | { readonly k: 'arith'; readonly op: ArithOp; readonly left: Ir; readonly right: Ir }
  | { readonly k: 'coalesce'; readonly left: Ir; readonly right: Ir }
);

export function isTensorType(t: Type): t is { readonly tensor: string; readonly info: ConditionTensorInfo } {
  return typeof t === 'object' && 'tensor' in t;
}

export function isListType(t: Type): t is { readonly list: ScalarType | 'dynamic' | 'empty'; readonly length?: number } {
  return typeof t === 'object' && 'list' in t;
}

export function describeType(t: Type): string {
  if (isTensorType(t)) return `a ${t.info.datatype} tensor`;
  if (isListType(t)) return t.list === 'empty' || t.list === 'dynamic' ? 'a list' : `a list of ${t.list}s`;
  if (t === 'null') return 'null';
  if (t === 'dynamic') return 'a request parameter';
  return `a ${t}`;
}
