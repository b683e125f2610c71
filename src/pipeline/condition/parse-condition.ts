import type { ConditionProblem } from './condition-types.js';
import { lexCondition, type Token } from './lex-condition.js';

/** Every node keeps the span of source it came from, so a type error can point at it. */
interface Span { readonly offset: number; readonly length: number }

export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in';
export type ArithOp = '+' | '-' | '*' | '/';

export type Ast = Span & (
  | { readonly k: 'literal'; readonly value: number | string | boolean | null }
  | { readonly k: 'list'; readonly items: readonly Ast[] }
  | { readonly k: 'tensor'; readonly name: string }
  | { readonly k: 'param'; readonly name: string }
  | { readonly k: 'call'; readonly fn: string; readonly fnSpan: Span; readonly args: readonly Ast[] }
  | { readonly k: 'index'; readonly list: Ast; readonly index: Ast }
  | { readonly k: 'not'; readonly arg: Ast }
  | { readonly k: 'neg'; readonly arg: Ast }
  | { readonly k: 'logic'; readonly op: 'and' | 'or'; readonly left: Ast; readonly right: Ast }
  | { readonly k: 'compare'; readonly op: CompareOp; readonly opSpan: Span; readonly left: Ast; readonly right: Ast }
  | { readonly k: 'arith'; readonly op: ArithOp; readonly opSpan: Span; readonly left: Ast; readonly right: Ast }
  | { readonly k: 'coalesce'; readonly opSpan: Span; readonly left: Ast; readonly right: Ast }
);

class SyntaxProblem {
  constructor(readonly problem: ConditionProblem) {}
}

const COMPARE: ReadonlySet<string> = new Set(['==', '!=', '<', '<=', '>', '>=']);
/** Deep nesting is refused before the stack is: a condition is a one-line test, not a program. */
const MAX_DEPTH = 64;

/**
 * Recursive descent, precedence low to high: or, and, not, comparison (one per level, no chains),
 * ??, + -, * /, unary minus, postfix [i], primary. Stops at the first syntax error.
 */
export function parseCondition(source: string): { ast?: Ast; problems: ConditionProblem[] } {
  const problems: ConditionProblem[] = [];
  const tokens = lexCondition(source, problems);
  if (problems.length) return { problems };
  let pos = 0;
  let depth = 0;
  const peek = (): Token => tokens[pos]!;
  const is = (text: string): boolean => { const t = peek(); return (t.kind === 'op' || t.kind === 'keyword') && t.text === text; };
  const next = (): Token => tokens[pos++]!;
  const notIn = (): boolean => is('not') && tokens[pos + 1]!.kind === 'keyword' && tokens[pos + 1]!.text === 'in';
  const fail = (t: Token, message: string): never => {
    throw new SyntaxProblem({ message, offset: t.offset, length: Math.max(t.length, 1) });
  };
  const describe = (t: Token): string => (t.kind === 'end' ? 'the end of the condition' : `'${source.slice(t.offset, t.offset + t.length)}'`);
  const expect = (text: string, what: string): Token => (is(text) ? next() : fail(peek(), `expected ${what}, found ${describe(peek())}`));
  const span = (a: Span, b: Span): Span => ({ offset: a.offset, length: b.offset + b.length - a.offset });
  const enter = (t: Token): void => { if (++depth > MAX_DEPTH) fail(t, `the condition nests deeper than ${MAX_DEPTH} levels`); };

  function or(): Ast {
    let left = and();
    while (is('or') || is('||')) {
      next();
      const right = and();
      left = { k: 'logic', op: 'or', left, right, ...span(left, right) };
    }
    return left;
  }
  function and(): Ast {
    let left = not();
    while (is('and') || is('&&')) {
      next();
      const right = not();
      left = { k: 'logic', op: 'and', left, right, ...span(left, right) };
    }
    return left;
  }
  function not(): Ast {
    if ((is('not') || is('!')) && !notIn()) {
      const t = next();
      enter(t);
      const arg = not();
      depth--;
      return { k: 'not', arg, ...span(t, arg) };
    }
    return compare();
  }
  function compare(): Ast {
    const left = coalesce();
    const t = peek();
    let op: CompareOp | undefined;
    if (t.kind === 'op' && COMPARE.has(t.text)) op = t.text as CompareOp;
    else if (is('in')) op = 'in';
    else if (notIn()) op = 'not in';
    if (!op) return left;
    next();
    if (op === 'not in') next();
    const opSpan = op === 'not in' ? span(t, tokens[pos - 1]!) : { offset: t.offset, length: t.length };
    const right = coalesce();
    const after = peek();
    if ((after.kind === 'op' && COMPARE.has(after.text)) || is('in') || notIn()) {
      fail(after, `comparisons do not chain: write 'a < b and b < c' instead of 'a < b < c'`);
    }
    return { k: 'compare', op, opSpan, left, right, ...span(left, right) };
  }
  function coalesce(): Ast {
    let left = additive();
    while (is('??')) {
      const t = next();
      const right = additive();
      left = { k: 'coalesce', opSpan: t, left, right, ...span(left, right) };
    }
    return left;
  }
  function additive(): Ast {
    let left = multiplicative();
    while (is('+') || is('-')) {
      const t = next();
      const right = multiplicative();
      left = { k: 'arith', op: t.text as ArithOp, opSpan: t, left, right, ...span(left, right) };
    }
    return left;
  }
  function multiplicative(): Ast {
    let left = unary();
    while (is('*') || is('/')) {
      const t = next();
      const right = unary();
      left = { k: 'arith', op: t.text as ArithOp, opSpan: t, left, right, ...span(left, right) };
    }
    return left;
  }
  function unary(): Ast {
    if (is('-')) {
      const t = next();
      enter(t);
      const arg = unary();
      depth--;
      return { k: 'neg', arg, ...span(t, arg) };
    }
    if (is('!') || is('not')) fail(peek(), `${describe(peek())} applies to a whole comparison: put it first or in parentheses, e.g. not (a == b)`);
    return postfix();
  }
  function postfix(): Ast {
    let node = primary();
    while (is('[')) {
      next();
      const index = or();
      const close = expect(']', "']' to close the index");
      node = { k: 'index', list: node, index, ...span(node, close) };
    }
    return node;
  }
  function primary(): Ast {
    const t = next();
    if (t.kind === 'number' || t.kind === 'string') return { k: 'literal', value: t.value!, offset: t.offset, length: t.length };
    if (t.kind === 'keyword' && (t.text === 'true' || t.text === 'false')) return { k: 'literal', value: t.text === 'true', offset: t.offset, length: t.length };
    if (t.kind === 'keyword' && t.text === 'null') return { k: 'literal', value: null, offset: t.offset, length: t.length };
    if (t.kind === 'op' && t.text === '(') {
      enter(t);
      const inner = or();
      depth--;
      expect(')', "')' to close the parenthesis");
      return inner;
    }
    if (t.kind === 'op' && t.text === '[') {
      enter(t);
      const items: Ast[] = [];
      while (!is(']')) {
        items.push(or());
        if (!is(']')) expect(',', "',' or ']' in the list");
      }
      depth--;
      const close = next();
      return { k: 'list', items, ...span(t, close) };
    }
    if (t.kind === 'ident' && t.text === 'params') return param(t);
    if (t.kind === 'ident' && is('(')) return call(t);
    if (t.kind === 'ident') return { k: 'tensor', name: t.text, offset: t.offset, length: t.length };
    return fail(t, `expected a value (a tensor, params.name, a function call, a literal or '('), found ${describe(t)}`);
  }
  function param(t: Token): Ast {
    if (is('.')) {
      next();
      const name = next();
      if (name.kind !== 'ident' && name.kind !== 'keyword') fail(name, `expected a parameter name after 'params.', found ${describe(name)}`);
      return { k: 'param', name: name.text, ...span(t, name) };
    }
    if (is('[')) {
      next();
      const name = next();
      if (name.kind !== 'string') fail(name, `expected a quoted parameter name in params[...], found ${describe(name)}`);
      const close = expect(']', "']' after the parameter name");
      return { k: 'param', name: name.text, ...span(t, close) };
    }
    return fail(peek(), `'params' reads a request parameter: write params.name or params["name"]`);
  }
  function call(t: Token): Ast {
    next();
    enter(t);
    const args: Ast[] = [];
    while (!is(')')) {
      args.push(or());
      if (!is(')')) expect(',', "',' or ')' in the call");
    }
    depth--;
    const close = next();
    const fnSpan = { offset: t.offset, length: t.length };
    if (t.text === 'tensor') {
      const arg = args[0];
      if (args.length !== 1 || arg?.k !== 'literal' || typeof arg.value !== 'string') {
        fail(t, `tensor(...) takes one quoted tensor name, e.g. tensor("scores:0")`);
      }
      return { k: 'tensor', name: (arg as { value: string }).value, ...span(t, close) };
    }
    return { k: 'call', fn: t.text, fnSpan, args, ...span(t, close) };
  }

  try {
    if (peek().kind === 'end') fail(peek(), 'the condition is empty');
    const ast = or();
    if (peek().kind !== 'end') fail(peek(), `unexpected ${describe(peek())} after a complete condition (missing 'and' / 'or'?)`);
    return { ast, problems };
  } catch (e) {
    if (e instanceof SyntaxProblem) return { problems: [e.problem] };
    throw e;
  }
}
