/**
 * The functions a condition may call. Each takes one argument; `takes` says what kind (checked at
 * load), `run` computes the value at run time. any()/all() are element-wise forms the checker
 * builds itself (their argument is a comparison, not a value), so they have no `run`.
 */
import { Errors } from '../../errors.js';
import type { Tensor } from '../../tensor/index.js';
import type { Type } from './condition-ir.js';
import { isPlainNumeric, numberAt } from './read-elements.js';

export interface CallSite {
  readonly source: string;
  /** The argument as written, for messages. */
  readonly arg: string;
  readonly labels?: readonly string[];
}

export interface ConditionFunction {
  readonly name: string;
  /** numeric: a non-BYTES tensor; tensor: any tensor; list: a list value; elementwise: any/all. */
  readonly takes: 'numeric' | 'tensor' | 'list' | 'elementwise';
  readonly needsLabels?: boolean;
  readonly result: (arg: Type) => Type;
  readonly run?: (value: never, site: CallSite) => unknown;
}

function nonEmpty(t: Tensor, fn: string, site: CallSite): number {
  const n = t.data.length;
  if (n === 0) throw Errors.conditionEmptyTensor(site.source, `${fn}(${site.arg})`);
  return n;
}

/** Index of the largest (sign -1: smallest) element; ties go to the first, as numpy's argmax. */
function argBest(t: Tensor, sign: 1 | -1, fn: string, site: CallSite): number {
  const n = nonEmpty(t, fn, site);
  let best = 0;
  if (isPlainNumeric(t)) {
    const d = t.data as ArrayLike<number>;
    let v = d[0]! * sign;
    for (let i = 1; i < n; i++) if (d[i]! * sign > v) { v = d[i]! * sign; best = i; }
    return best;
  }
  let v = numberAt(t, 0) * sign;
  for (let i = 1; i < n; i++) {
    const x = numberAt(t, i) * sign;
    if (x > v) { v = x; best = i; }
  }
  return best;
}

function total(t: Tensor): number {
  let s = 0;
  const n = t.data.length;
  if (isPlainNumeric(t)) {
    const d = t.data as ArrayLike<number>;
    for (let i = 0; i < n; i++) s += d[i]!;
  } else {
    for (let i = 0; i < n; i++) s += numberAt(t, i);
  }
  return s;
}

const number = (): Type => 'number';

const FUNCTIONS: readonly ConditionFunction[] = [
  { name: 'argmax', takes: 'numeric', result: number, run: (t: Tensor, s) => argBest(t, 1, 'argmax', s) },
  { name: 'argmin', takes: 'numeric', result: number, run: (t: Tensor, s) => argBest(t, -1, 'argmin', s) },
  { name: 'max', takes: 'numeric', result: number, run: (t: Tensor, s) => numberAt(t, argBest(t, 1, 'max', s)) },
  { name: 'min', takes: 'numeric', result: number, run: (t: Tensor, s) => numberAt(t, argBest(t, -1, 'min', s)) },
  { name: 'sum', takes: 'numeric', result: number, run: (t: Tensor) => total(t) },
  { name: 'mean', takes: 'numeric', result: number, run: (t: Tensor, s) => total(t) / nonEmpty(t, 'mean', s) },
  {
    name: 'top1', takes: 'numeric', needsLabels: true, result: () => 'string',
    run: (t: Tensor, s) => {
      const i = argBest(t, 1, 'top1', s);
      const labels = s.labels!;
      if (i >= labels.length) throw Errors.conditionLabelMissing(s.source, s.arg, i, labels.length);
      return labels[i];
    },
  },
  { name: 'size', takes: 'tensor', result: number, run: (t: Tensor) => t.data.length },
  { name: 'rank', takes: 'tensor', result: number, run: (t: Tensor) => t.shape.length },
  {
    name: 'shape', takes: 'tensor',
    result: (arg) => (typeof arg === 'object' && 'tensor' in arg ? { list: 'number', length: arg.info.dims.length } : { list: 'number' }),
    run: (t: Tensor) => t.shape,
  },
  { name: 'len', takes: 'list', result: number, run: (l: readonly unknown[]) => l.length },
  { name: 'any', takes: 'elementwise', result: () => 'bool' },
  { name: 'all', takes: 'elementwise', result: () => 'bool' },
];

/** A Map, so that `constructor(x)` or `__proto__(x)` is an unknown function, not Object's. */
export const CONDITION_FUNCTIONS: ReadonlyMap<string, ConditionFunction> = new Map(FUNCTIONS.map((f) => [f.name, f]));
