/**
 * Turns a checked condition into nested closures, built once at load: an evaluation is a few direct
 * calls, with no tree walk, no type test left to make and nothing allocated on the common paths.
 */
import { Errors } from '../../errors.js';
import type { Parameters } from '../../inference/index.js';
import type { Tensor } from '../../tensor/index.js';
import type { CallSite } from './condition-functions.js';
import { isTensorType, type Ir } from './condition-ir.js';
import { bytesAt, numberAt, valueAt } from './read-elements.js';

type Read = (name: string) => Tensor | undefined;
type Value = unknown;
export type Fn = (read: Read, params: Parameters | undefined) => Value;

/** Thrown when a read tensor is absent or SKIPPED, or a parameter a test needs is missing: the condition is false. */
export const ABSENT: unique symbol = Symbol('condition input absent');

function typeOfValue(v: unknown): string {
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

function equalFn(op: string, l: Fn, r: Fn): Fn {
  return op === '==' ? (rd, p) => l(rd, p) === r(rd, p) : (rd, p) => l(rd, p) !== r(rd, p);
}

function orderFn(op: string, l: Fn, r: Fn): Fn {
  switch (op) {
    case '<': return (rd, p) => (l(rd, p) as number) < (r(rd, p) as number);
    case '<=': return (rd, p) => (l(rd, p) as number) <= (r(rd, p) as number);
    case '>': return (rd, p) => (l(rd, p) as number) > (r(rd, p) as number);
    default: return (rd, p) => (l(rd, p) as number) >= (r(rd, p) as number);
  }
}

function test(op: string): (a: unknown, b: unknown) => boolean {
  switch (op) {
    case '==': return (a, b) => a === b;
    case '!=': return (a, b) => a !== b;
    case '<': return (a, b) => (a as number) < (b as number);
    case '<=': return (a, b) => (a as number) <= (b as number);
    case '>': return (a, b) => (a as number) > (b as number);
    default: return (a, b) => (a as number) >= (b as number);
  }
}

export function emitClosures(source: string, root: Ir): Fn {
  const text = (ir: Ir): string => source.slice(ir.offset, ir.offset + ir.length);

  function scalarOf(ir: Extract<Ir, { k: 'scalar' }>): Fn {
    const t = emit(ir.arg);
    const name = ir.name;
    const one = (x: Tensor): Tensor => {
      if (x.data.length !== 1) throw Errors.conditionNotScalar(source, name, x.data.length);
      return x;
    };
    if (ir.type === 'string') return (rd, p) => bytesAt(one(t(rd, p) as Tensor), 0);
    if (ir.type === 'bool') return (rd, p) => (one(t(rd, p) as Tensor).data as Uint8Array)[0] !== 0;
    const dt = isTensorType(ir.arg.type) ? ir.arg.type.info.datatype : '';
    if (dt === 'FP32' || dt === 'FP64' || dt === 'INT32' || dt === 'INT16' || dt === 'INT8' || dt === 'UINT8' || dt === 'UINT16' || dt === 'UINT32') {
      return (rd, p) => {
        const x = one(t(rd, p) as Tensor);
        // the run-time datatype is the declared one (the pipeline checks it); read it directly
        return x.datatype === dt ? (x.data as ArrayLike<number>)[0] : numberAt(x, 0);
      };
    }
    return (rd, p) => numberAt(one(t(rd, p) as Tensor), 0);
  }

  function expect(ir: Extract<Ir, { k: 'expect' }>): Fn {
    const a = emit(ir.arg);
    const { want, orNull } = ir;
    const what = ir.arg.k === 'param' ? ir.arg.name : ir.what;
    const js = want === 'bool' ? 'boolean' : want;
    return (rd, p) => {
      const v = a(rd, p);
      if (typeof v === js) return v;
      if (v === null) {
        if (orNull) return null;
        throw ABSENT;
      }
      throw Errors.conditionParamType(source, what, want, typeOfValue(v));
    };
  }

  function call(ir: Extract<Ir, { k: 'call' }>): Fn {
    const a = emit(ir.arg);
    const run = ir.fn.run as (v: unknown, s: CallSite) => unknown;
    const labels = isTensorType(ir.arg.type) ? ir.arg.type.info.labels : undefined;
    const site: CallSite = { source, arg: text(ir.arg), ...(labels ? { labels } : {}) };
    return (rd, p) => run(a(rd, p), site);
  }

  function elementwise(ir: Extract<Ir, { k: 'elementwise' }>): Fn {
    const t = emit(ir.tensor);
    const all = ir.all;
    if (ir.op === 'truthy') {
      return (rd, p) => {
        const d = (t(rd, p) as Tensor).data as Uint8Array;
        for (let i = 0; i < d.length; i++) if ((d[i] !== 0) !== all) return !all;
        return all;
      };
    }
    const v = emit(ir.value!);
    const cmp = test(ir.op);
    const flipped = ir.flipped;
    return (rd, p) => {
      const x = t(rd, p) as Tensor;
      const value = v(rd, p);
      const n = x.data.length;
      for (let i = 0; i < n; i++) {
        const e = valueAt(x, i);
        if ((flipped ? cmp(value, e) : cmp(e, value)) !== all) return !all;
      }
      return all;
    };
  }

  function membership(ir: Extract<Ir, { k: 'compare' }>): Fn {
    const item = emit(ir.left);
    const negate = ir.op === 'not in';
    const list = ir.right;
    if (list.k === 'list' && list.items.every((i) => i.k === 'literal')) {
      const values = list.items.map((i) => (i as { value: unknown }).value);
      // a Set pays off only past a handful of items; short lists scan faster
      if (values.length > 8) {
        const set = new Set(values);
        return (rd, p) => set.has(item(rd, p)) !== negate;
      }
      return (rd, p) => values.includes(item(rd, p)) !== negate;
    }
    const l = emit(list);
    return (rd, p) => (l(rd, p) as unknown[]).includes(item(rd, p)) !== negate;
  }

  function index(ir: Extract<Ir, { k: 'index' }>): Fn {
    const l = emit(ir.list);
    const i = emit(ir.index);
    const what = text(ir.list);
    return (rd, p) => {
      const list = l(rd, p) as readonly unknown[];
      const at = i(rd, p) as number;
      if (!Number.isInteger(at) || at < 0 || at >= list.length) throw Errors.conditionIndexRange(source, what, at, list.length);
      return list[at];
    };
  }

  function emit(ir: Ir): Fn {
    switch (ir.k) {
      case 'literal': { const v = ir.value; return () => v; }
      case 'list': {
        const items = ir.items.map(emit);
        return (rd, p) => items.map((f) => f(rd, p));
      }
      case 'tensor': {
        const name = ir.name;
        return (rd) => {
          const t = rd(name);
          if (t === undefined) throw ABSENT;
          return t;
        };
      }
      case 'param': {
        const name = ir.name;
        return (_rd, p) => {
          // own properties only: `params.constructor` is a missing parameter, not Object's
          if (p === undefined || !Object.hasOwn(p, name)) return null;
          const v = p[name];
          return typeof v === 'bigint' ? Number(v) : v;
        };
      }
      case 'scalar': return scalarOf(ir);
      case 'expect': return expect(ir);
      case 'call': return call(ir);
      case 'elementwise': return elementwise(ir);
      case 'index': return index(ir);
      case 'not': { const a = emit(ir.arg); return (rd, p) => !a(rd, p); }
      case 'neg': { const a = emit(ir.arg); return (rd, p) => -(a(rd, p) as number); }
      case 'logic': {
        const l = emit(ir.left);
        const r = emit(ir.right);
        return ir.op === 'and' ? (rd, p) => l(rd, p) === true && r(rd, p) === true : (rd, p) => l(rd, p) === true || r(rd, p) === true;
      }
      case 'compare': {
        if (ir.op === 'in' || ir.op === 'not in') return membership(ir);
        const l = emit(ir.left);
        const r = emit(ir.right);
        return ir.op === '==' || ir.op === '!=' ? equalFn(ir.op, l, r) : orderFn(ir.op, l, r);
      }
      case 'arith': {
        const l = emit(ir.left);
        const r = emit(ir.right);
        switch (ir.op) {
          case '+': return (rd, p) => (l(rd, p) as number) + (r(rd, p) as number);
          case '-': return (rd, p) => (l(rd, p) as number) - (r(rd, p) as number);
          case '*': return (rd, p) => (l(rd, p) as number) * (r(rd, p) as number);
          default: return (rd, p) => (l(rd, p) as number) / (r(rd, p) as number);
        }
      }
      case 'coalesce': {
        const l = emit(ir.left);
        const r = emit(ir.right);
        return (rd, p) => l(rd, p) ?? r(rd, p);
      }
    }
  }

  return emit(root);
}
