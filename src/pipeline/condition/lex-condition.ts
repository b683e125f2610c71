import type { ConditionProblem } from './condition-types.js';

type TokenKind = 'number' | 'string' | 'ident' | 'keyword' | 'op' | 'end';

export interface Token {
  readonly kind: TokenKind;
  /** The operator or keyword spelling, the identifier, the decoded string, the number's text. */
  readonly text: string;
  readonly value?: number | string;
  readonly offset: number;
  readonly length: number;
}

const KEYWORDS: ReadonlySet<string> = new Set(['and', 'or', 'not', 'in', 'true', 'false', 'null']);

/** Longest first, so `<=` is not read as `<` then `=`. */
const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '??', '<', '>', '!', '+', '-', '*', '/', '(', ')', '[', ']', ',', '.'];

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\', "'": "'", '"': '"' };

const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;

/** Split a condition into tokens; every token keeps its offset and length for messages. */
export function lexCondition(source: string, problems: ConditionProblem[]): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    if (c === "'" || c === '"') { i = lexString(source, i, tokens, problems); continue; }
    NUMBER.lastIndex = i;
    const num = NUMBER.exec(source);
    if (num && /[\d.]/.test(c)) {
      const text = num[0];
      IDENT.lastIndex = i + text.length;
      if (IDENT.exec(source)?.index === i + text.length) {
        problems.push({ message: `a number cannot run into a name: put a space or an operator after ${text}`, offset: i, length: text.length + 1 });
      }
      tokens.push({ kind: 'number', text, value: Number(text), offset: i, length: text.length });
      i += text.length;
      continue;
    }
    IDENT.lastIndex = i;
    const id = IDENT.exec(source);
    if (id) {
      const text = id[0];
      tokens.push({ kind: KEYWORDS.has(text) ? 'keyword' : 'ident', text, offset: i, length: text.length });
      i += text.length;
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (op) {
      tokens.push({ kind: 'op', text: op, offset: i, length: op.length });
      i += op.length;
      continue;
    }
    const hint = c === '=' ? " (compare with '==')" : c === '&' ? " (use '&&' or 'and')" : c === '|' ? " (use '||' or 'or')" : '';
    problems.push({ message: `unexpected character '${c}'${hint}`, offset: i, length: 1 });
    i++;
  }
  tokens.push({ kind: 'end', text: '', offset: source.length, length: 0 });
  return tokens;
}

function lexString(source: string, start: number, tokens: Token[], problems: ConditionProblem[]): number {
  const quote = source[start]!;
  let out = '';
  let i = start + 1;
  while (i < source.length && source[i] !== quote) {
    if (source[i] !== '\\') { out += source[i]; i++; continue; }
    const e = source[i + 1];
    if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
      out += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
      i += 6;
    } else if (e !== undefined && ESCAPES[e] !== undefined) {
      out += ESCAPES[e];
      i += 2;
    } else {
      problems.push({ message: `unknown escape '\\${e ?? ''}' in a string (known: \\n \\t \\r \\0 \\\\ \\' \\" \\uXXXX)`, offset: i, length: e === undefined ? 1 : 2 });
      i += 2;
    }
  }
  if (i >= source.length) {
    problems.push({ message: `string not closed: add the closing ${quote}`, offset: start, length: source.length - start });
  }
  const end = Math.min(i + 1, source.length);
  tokens.push({ kind: 'string', text: out, value: out, offset: start, length: end - start });
  return end;
}
