/**
 * Tokens of the protobuf text format (what config.pbtxt is written in): `#` comments, identifiers,
 * numbers (decimal, hex, octal, floats with an optional `f`), strings in either quote with C
 * escapes, and the punctuation `{ } < > [ ] : , ; -`.
 */
import type { SourcePosition } from './config-problem.js';

type TokenKind = 'ident' | 'number' | 'string' | 'punct' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** Source spelling (for strings: the decoded value). */
  readonly text: string;
  /** Numbers: the parsed value. */
  readonly value?: number;
  readonly pos: SourcePosition;
}

export class PbtxtSyntaxError extends Error {
  constructor(readonly pos: SourcePosition, message: string) {
    super(message);
  }
}

const PUNCT = new Set(['{', '}', '<', '>', '[', ']', ':', ',', ';', '-']);
const SIMPLE_ESCAPES: Record<string, number> = {
  n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '\\': 92, "'": 39, '"': 34, '?': 63,
};
const utf8 = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const here = (at = i): SourcePosition => ({ line, col: at - lineStart + 1 });

  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n') { i++; line++; lineStart = i; continue; }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') { i++; continue; }
    if (c === '#') { while (i < src.length && src[i] !== '\n') i++; continue; }
    const start = here();
    if (c === '"' || c === "'") {
      i = readString(src, i, start, (text) => tokens.push({ kind: 'string', text, pos: start }));
      continue;
    }
    if (PUNCT.has(c)) { tokens.push({ kind: 'punct', text: c, pos: start }); i++; continue; }
    if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < src.length && /[A-Za-z0-9_.]/.test(src[j]!)) j++;
      tokens.push({ kind: 'ident', text: src.slice(i, j), pos: start });
      i = j;
      continue;
    }
    if (/[0-9.]/.test(c)) {
      const m = /^(0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fF]?)/.exec(src.slice(i, i + 64));
      const text = m?.[0] ?? '';
      const after = src[i + text.length] ?? '';
      if (text === '' || text === '.' || /[A-Za-z0-9_]/.test(after)) {
        let j = i;
        while (j < src.length && /[A-Za-z0-9_.]/.test(src[j]!)) j++;
        throw new PbtxtSyntaxError(start, `invalid number '${src.slice(i, j)}'`);
      }
      tokens.push({ kind: 'number', text, value: numberValue(text), pos: start });
      i += text.length;
      continue;
    }
    throw new PbtxtSyntaxError(start, `unexpected character '${c}'`);
  }
  tokens.push({ kind: 'eof', text: 'end of file', pos: here() });
  return tokens;
}

function numberValue(text: string): number {
  if (/^0[xX]/.test(text)) return parseInt(text.slice(2), 16);
  if (/^0[0-7]+$/.test(text)) return parseInt(text, 8);
  return Number(text.replace(/[fF]$/, ''));
}

/** Reads one quoted string starting at `i`; returns the index after the closing quote. */
function readString(src: string, i: number, start: SourcePosition, emit: (s: string) => void): number {
  const quote = src[i];
  const bytes: number[] = [];
  let j = i + 1;
  for (;;) {
    if (j >= src.length || src[j] === '\n') {
      throw new PbtxtSyntaxError(start, `unterminated string: missing closing ${quote} before end of ${j >= src.length ? 'file' : 'line'}`);
    }
    const c = src[j];
    if (c === quote) break;
    if (c !== '\\') {
      const cp = src.codePointAt(j)!;
      const ch = String.fromCodePoint(cp);
      for (const b of utf8.encode(ch)) bytes.push(b);
      j += ch.length;
      continue;
    }
    const e = src[j + 1];
    if (e === undefined || e === '\n') throw new PbtxtSyntaxError(start, 'unterminated string: backslash at end of line');
    if (e in SIMPLE_ESCAPES) { bytes.push(SIMPLE_ESCAPES[e]!); j += 2; continue; }
    if (/[0-7]/.test(e)) {
      const m = /^[0-7]{1,3}/.exec(src.slice(j + 1, j + 4))![0];
      bytes.push(parseInt(m, 8) & 0xff);
      j += 1 + m.length;
      continue;
    }
    if (e === 'x' || e === 'X') {
      const m = /^[0-9a-fA-F]{1,2}/.exec(src.slice(j + 2, j + 4))?.[0];
      if (!m) throw new PbtxtSyntaxError({ line: start.line, col: start.col + (j - i) }, "invalid escape '\\x' (expected hex digits)");
      bytes.push(parseInt(m, 16));
      j += 2 + m.length;
      continue;
    }
    if (e === 'u' || e === 'U') {
      const n = e === 'u' ? 4 : 8;
      const hex = src.slice(j + 2, j + 2 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) {
        throw new PbtxtSyntaxError({ line: start.line, col: start.col + (j - i) }, `invalid escape '\\${e}' (expected ${n} hex digits)`);
      }
      for (const b of utf8.encode(String.fromCodePoint(parseInt(hex, 16)))) bytes.push(b);
      j += 2 + n;
      continue;
    }
    throw new PbtxtSyntaxError({ line: start.line, col: start.col + (j - i) }, `invalid escape sequence '\\${e}' in string`);
  }
  emit(decoder.decode(new Uint8Array(bytes)));
  return j + 1;
}
