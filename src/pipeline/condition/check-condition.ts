/**
 * Type-checks a parsed condition against the pipeline's tensors and returns its typed form (see
 * condition-ir.ts). Every problem is collected with the span of the token at fault; a node whose
 * type is wrong becomes `error`, which silences the follow-on problems it would cause.
 */
import { closest } from '../../config/index.js';
import { fromConfigType, isDataType } from '../../tensor/index.js';
import { CONDITION_FUNCTIONS } from './condition-functions.js';
import { describeType, isListType, isTensorType, type Ir, type ScalarType, type Type } from './condition-ir.js';
import type { ConditionEnv, ConditionProblem, ConditionTensorInfo } from './condition-types.js';
import type { Ast } from './parse-condition.js';

interface Span { readonly offset: number; readonly length: number }

const ORDERED = new Set(['<', '<=', '>', '>=']);

export function checkCondition(source: string, ast: Ast, env: ConditionEnv, problems: ConditionProblem[]): Ir {
  const text = (s: Span): string => source.slice(s.offset, s.offset + s.length);
  const problem = (s: Span, message: string): Ir => {
    problems.push({ message, offset: s.offset, length: s.length });
    return { k: 'literal', value: null, type: 'error', offset: s.offset, length: s.length };
  };
  const at = (s: Span) => ({ offset: s.offset, length: s.length });

  /** A tensor where one value is expected: its single element, typed by its datatype. */
  function scalar(ir: Ir): Ir {
    if (!isTensorType(ir.type)) return ir;
    const { info, tensor } = ir.type;
    const known = info.dims.filter((d) => d >= 0);
    const count = known.reduce((a, d) => a * d, 1);
    if (count !== 1) {
      const what = count === 0 ? 'has no elements' : `holds ${count} values per request (dims [${info.dims.join(', ')}])`;
      return problem(ir, `tensor '${tensor}' ${what} where one value is expected: compare a summary such as max(${text(ir)}), min(${text(ir)}), any(${text(ir)} == x) or all(${text(ir)} > x)`);
    }
    const type: ScalarType = info.datatype === 'BYTES' ? 'string' : info.datatype === 'BOOL' ? 'bool' : 'number';
    return { k: 'scalar', arg: ir, name: tensor, type, ...at(ir) };
  }

  /** `ir` used as a `want`: a parameter gets a run-time check, anything else must already be one. */
  function coerce(ir: Ir, want: ScalarType, why: string, orNull = false): Ir {
    const s = scalar(ir);
    if (s.type === 'error' || s.type === want) return s;
    if (s.type === 'dynamic') return { k: 'expect', arg: s, want, orNull, what: text(s), type: want, ...at(s) };
    return problem(s, `${why} needs a ${want}, but ${text(s)} is ${describeType(s.type)}`);
  }

  function tensorRef(name: string, s: Span): Ir {
    const given: ConditionTensorInfo | undefined = env.tensor(name);
    if (!given) {
      const guess = env.names ? closest(name, [...env.names()]) : undefined;
      const fn = CONDITION_FUNCTIONS.has(name) ? `; ${name} is a function: call it, ${name}(...)` : '';
      return problem(s, `unknown tensor '${name}'${guess ? ` (did you mean '${guess}'?)` : ''}${fn}; name a tensor produced before this point, or a pipeline input`);
    }
    // the model-config spelling (TYPE_STRING) is accepted too: both reach here from configs
    const datatype = fromConfigType(given.datatype) ?? given.datatype;
    if (!isDataType(datatype)) return problem(s, `tensor '${name}' has the unknown datatype '${given.datatype}'`);
    const info = datatype === given.datatype ? given : { ...given, datatype };
    return { k: 'tensor', name, type: { tensor: name, info }, ...at(s) };
  }

  function call(ast: Extract<Ast, { k: 'call' }>): Ir {
    const fn = CONDITION_FUNCTIONS.get(ast.fn);
    if (!fn) {
      const guess = closest(ast.fn, [...CONDITION_FUNCTIONS.keys(), 'tensor']);
      return problem(ast.fnSpan, `unknown function '${ast.fn}'${guess ? ` (did you mean '${guess}'?)` : ''}; the functions are ${[...CONDITION_FUNCTIONS.keys()].join(', ')}`);
    }
    if (ast.args.length !== 1) return problem(ast, `${fn.name}() takes one argument, not ${ast.args.length}`);
    const arg0 = ast.args[0]!;
    if (fn.takes === 'elementwise') return elementwise(fn.name === 'all', arg0, ast);
    const arg = check(arg0);
    if (arg.type === 'error') return arg;
    if (fn.takes === 'list') {
      if (!isListType(arg.type)) return problem(arg, `${fn.name}() takes a list, but ${text(arg)} is ${describeType(arg.type)}`);
    } else {
      if (!isTensorType(arg.type)) return problem(arg, `${fn.name}() takes a tensor, but ${text(arg)} is ${describeType(arg.type)}`);
      if (fn.takes === 'numeric' && arg.type.info.datatype === 'BYTES') {
        return problem(arg, `${fn.name}() takes a numeric tensor, but '${arg.type.tensor}' is BYTES`);
      }
      if (fn.needsLabels && !arg.type.info.labels?.length) {
        return problem(arg, `${fn.name}(${text(arg)}) needs labels, but tensor '${arg.type.tensor}' has none: give its model output a label_filename, or compare argmax(${text(arg)}) with a class index`);
      }
    }
    return { k: 'call', fn, arg, type: fn.result(arg.type), ...at(ast) };
  }

  /** any(t op x) / all(t op x): the tensor side is compared element by element, never read as one value. */
  function elementwise(all: boolean, arg: Ast, s: Span): Ir {
    const name = all ? 'all' : 'any';
    if (arg.k !== 'compare' || arg.op === 'in' || arg.op === 'not in') {
      const t = check(arg);
      if (t.type === 'error') return t;
      if (isTensorType(t.type) && t.type.info.datatype === 'BOOL') {
        return { k: 'elementwise', all, op: 'truthy', tensor: t, flipped: false, type: 'bool', ...at(s) };
      }
      return problem(arg, `${name}() takes a comparison of a tensor with a value, e.g. ${name}(scores > 0.5), or a BOOL tensor`);
    }
    const left = check(arg.left);
    const right = check(arg.right);
    if (left.type === 'error' || right.type === 'error') return left.type === 'error' ? left : right;
    const flipped = !isTensorType(left.type);
    const tensor = flipped ? right : left;
    if (!isTensorType(tensor.type)) return problem(arg, `${name}() compares a tensor element by element, but neither side of ${text(arg)} is a tensor`);
    const dt = tensor.type.info.datatype;
    const elem: ScalarType = dt === 'BYTES' ? 'string' : dt === 'BOOL' ? 'bool' : 'number';
    if (ORDERED.has(arg.op) && elem === 'bool') return problem(arg.opSpan, `a BOOL tensor has no order: compare it with == or !=`);
    const value = coerce(flipped ? left : right, elem, `comparing the ${dt} tensor '${tensor.type.tensor}'`);
    return { k: 'elementwise', all, op: arg.op, tensor, value, flipped, type: 'bool', ...at(s) };
  }

  function compare(ast: Extract<Ast, { k: 'compare' }>): Ir {
    if (ast.op === 'in' || ast.op === 'not in') return membership(ast);
    const left = scalar(check(ast.left));
    const right = scalar(check(ast.right));
    if (left.type === 'error' || right.type === 'error') return { ...left, type: 'error' };
    const node = (l: Ir, r: Ir): Ir => ({ k: 'compare', op: ast.op, left: l, right: r, type: 'bool', ...at(ast) });
    for (const side of [left, right]) {
      if (isListType(side.type)) return problem(side, `a list cannot be compared with ${ast.op}: compare its items (e.g. shape(t)[0] == 1) or use 'in'`);
    }
    const ordered = ORDERED.has(ast.op);
    if (left.type === 'null' || right.type === 'null') {
      const other = left.type === 'null' ? right : left;
      if (ordered) return problem(ast.opSpan, `null has no order: test a missing parameter with == null or give it a default with ??`);
      if (other.type !== 'dynamic' && other.type !== 'null') return problem(other, `${text(other)} is never null: only a request parameter can be missing (null)`);
      return node(left, right);
    }
    if (left.type === 'dynamic' && right.type === 'dynamic') {
      return ordered ? node(coerce(left, 'number', ast.op), coerce(right, 'number', ast.op)) : node(left, right);
    }
    if (left.type === 'dynamic' || right.type === 'dynamic') {
      const [dyn, fixed] = left.type === 'dynamic' ? [left, right] : [right, left];
      const want = fixed.type as ScalarType;
      if (ordered && want === 'bool') return problem(ast.opSpan, `bools have no order: compare them with == or !=`);
      const checked: Ir = { k: 'expect', arg: dyn, want, orNull: !ordered, what: text(dyn), type: want, ...at(dyn) };
      return left === dyn ? node(checked, right) : node(left, checked);
    }
    if (left.type !== right.type) {
      const culprit = right.k === 'literal' || left.k !== 'literal' ? right : left;
      return problem(culprit, `cannot compare ${text(left)} (${describeType(left.type)}) with ${text(right)} (${describeType(right.type)})`);
    }
    if (ordered && left.type === 'bool') return problem(ast.opSpan, `bools have no order: compare them with == or !=`);
    return node(left, right);
  }

  function membership(ast: Extract<Ast, { k: 'compare' }>): Ir {
    const list = check(ast.right);
    const item = scalar(check(ast.left));
    if (list.type === 'error' || item.type === 'error') return { ...list, type: 'error' };
    if (!isListType(list.type)) return problem(list, `'${ast.op}' needs a list on its right, e.g. ${text(ast.left)} ${ast.op} ['a', 'b'], but ${text(list)} is ${describeType(list.type)}`);
    if (item.type === 'null' || isListType(item.type)) return problem(item, `'${ast.op}' looks for one value in a list; ${text(item)} is ${describeType(item.type)}`);
    const elem = list.type.list;
    const node = (l: Ir): Ir => ({ k: 'compare', op: ast.op, left: l, right: list, type: 'bool', ...at(ast) });
    if (elem === 'empty' || elem === 'dynamic' || item.type === elem) return node(item);
    if (item.type === 'dynamic') return node({ k: 'expect', arg: item, want: elem, orNull: true, what: text(item), type: elem, ...at(item) });
    return problem(item, `${text(item)} is ${describeType(item.type)} but the list holds ${elem}s`);
  }

  function list(ast: Extract<Ast, { k: 'list' }>): Ir {
    const items = ast.items.map((a) => scalar(check(a)));
    let elem: ScalarType | undefined;
    let first: Ir | undefined;
    let bad = false;
    for (const it of items) {
      if (it.type === 'error') { bad = true; continue; }
      if (it.type === 'dynamic') continue;
      if (it.type === 'null' || typeof it.type === 'object') { problem(it, `a list holds strings, numbers or bools; ${text(it)} is ${describeType(it.type)}`); bad = true; continue; }
      if (!elem) { elem = it.type; first = it; continue; }
      if (it.type !== elem) { problem(it, `a list holds one type: ${text(it)} is ${describeType(it.type)} but ${text(first!)} is ${describeType(elem)}`); bad = true; }
    }
    if (bad) return { k: 'list', items, type: 'error', ...at(ast) };
    const typed = items.map((it) => (it.type === 'dynamic' && elem ? { k: 'expect' as const, arg: it, want: elem, orNull: true, what: text(it), type: elem, ...at(it) } : it));
    const kind = elem ?? (items.length ? 'dynamic' : 'empty');
    return { k: 'list', items: typed, type: { list: kind, length: items.length }, ...at(ast) };
  }

  function index(ast: Extract<Ast, { k: 'index' }>): Ir {
    const l = check(ast.list);
    const i = coerce(check(ast.index), 'number', 'an index');
    if (l.type === 'error' || i.type === 'error') return { ...l, type: 'error' };
    if (!isListType(l.type)) return problem(l, `only a list can be indexed, but ${text(l)} is ${describeType(l.type)}`);
    if (i.k === 'literal') {
      const n = i.value as number;
      if (!Number.isInteger(n) || n < 0) return problem(i, `an index is a whole number from 0, not ${text(i)}`);
      if (l.type.length !== undefined && n >= l.type.length) return problem(i, `index ${n} is out of range: ${text(l)} has ${l.type.length} items`);
    }
    if (l.type.list === 'empty') return problem(l, `an empty list has no items to index`);
    return { k: 'index', list: l, index: i, type: l.type.list, ...at(ast) };
  }

  function check(ast: Ast): Ir {
    switch (ast.k) {
      case 'literal': {
        const v = ast.value;
        return { k: 'literal', value: v, type: v === null ? 'null' : typeof v === 'string' ? 'string' : typeof v === 'number' ? 'number' : 'bool', ...at(ast) };
      }
      case 'list': return list(ast);
      case 'tensor': return tensorRef(ast.name, ast);
      case 'param': return { k: 'param', name: ast.name, type: 'dynamic', ...at(ast) };
      case 'call': return call(ast);
      case 'index': return index(ast);
      case 'not': return { k: 'not', arg: coerce(check(ast.arg), 'bool', "'not'"), type: 'bool', ...at(ast) };
      case 'neg': return { k: 'neg', arg: coerce(check(ast.arg), 'number', "unary '-'"), type: 'number', ...at(ast) };
      case 'logic': {
        const left = coerce(check(ast.left), 'bool', `'${ast.op}'`);
        const right = coerce(check(ast.right), 'bool', `'${ast.op}'`);
        return { k: 'logic', op: ast.op, left, right, type: 'bool', ...at(ast) };
      }
      case 'arith': {
        const left = coerce(check(ast.left), 'number', `'${ast.op}'`);
        const right = coerce(check(ast.right), 'number', `'${ast.op}'`);
        return { k: 'arith', op: ast.op, left, right, type: 'number', ...at(ast) };
      }
      case 'coalesce': {
        const left = scalar(check(ast.left));
        const right = scalar(check(ast.right));
        if (left.type === 'error' || right.type === 'error') return { ...left, type: 'error' };
        if (left.type !== 'dynamic' && left.type !== 'null') return problem(left, `'??' gives a default to a request parameter, but ${text(left)} is never missing`);
        if (isListType(right.type)) return problem(right, `a default for ${text(left)} is a string, number or bool, not a list`);
        if (right.type === 'dynamic' || right.type === 'null') return { k: 'coalesce', left, right, type: 'dynamic', ...at(ast) };
        const want = right.type as ScalarType;
        const l: Ir = left.type === 'null' ? left : { k: 'expect', arg: left, want, orNull: true, what: text(left), type: want, ...at(left) };
        return { k: 'coalesce', left: l, right, type: want, ...at(ast) };
      }
      case 'compare': return compare(ast);
    }
  }

  return coerce(check(ast), 'bool', 'a condition');
}
