/**
 * config.pbtxt (protobuf text format) -> syntax tree. The colon is optional before a message or a
 * list, messages open with `{` or `<`, repeated fields may repeat the key or use `[a, b]`, adjacent
 * strings concatenate, and `,`/`;` may follow any field. Like protobuf's own parser it stops at the
 * first syntax error; everything completed before it is kept so schema problems are still found.
 */
import type { ConfigProblem } from './config-problem.js';
import type { Entry, ObjectNode, SyntaxNode } from './syntax-tree.js';
import { PbtxtSyntaxError, tokenize, type Token } from './pbtxt-lexer.js';

export interface PbtxtResult { tree: ObjectNode; problems: ConfigProblem[] }

const CLOSE: Record<string, string> = { '{': '}', '<': '>' };

export function parsePbtxt(text: string, file: string): PbtxtResult {
  const root: ObjectNode = { type: 'object', style: 'message', entries: [], pos: { line: 1, col: 1 } };
  try {
    const p = new Parser(tokenize(text));
    p.body(root.entries, undefined);
  } catch (e) {
    if (!(e instanceof PbtxtSyntaxError)) throw e;
    return { tree: root, problems: [{ file, ...e.pos, path: '', message: e.message, severity: 'error' }] };
  }
  return { tree: root, problems: [] };
}

function describe(t: Token): string {
  if (t.kind === 'eof') return 'end of file';
  if (t.kind === 'string') return `string ${JSON.stringify(t.text)}`;
  return `'${t.text}'`;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  // tokenize() always ends the list with 'eof', and body() stops there, so `i` never runs past it.
  private peek(): Token { return this.tokens[this.i]!; }
  private next(): Token { return this.tokens[this.i++]!; }
  private isPunct(text: string): boolean {
    const t = this.peek();
    return t.kind === 'punct' && t.text === text;
  }

  /** Fields until `close` (or end of file at top level). `open` says which field opened it, for errors. */
  body(entries: Entry[], open: { close: string; field: string; at: Token } | undefined): void {
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') {
        if (!open) return;
        throw new PbtxtSyntaxError(open.at.pos,
          `missing '${open.close}': '${open.at.text}' opened for field '${open.field}' at ${open.at.pos.line}:${open.at.pos.col} is never closed (reached end of file)`);
      }
      if (t.kind === 'punct' && open && t.text === open.close) { this.next(); return; }
      if (t.kind === 'punct' && (t.text === '}' || t.text === '>')) {
        throw new PbtxtSyntaxError(t.pos, open
          ? `expected '${open.close}' to close field '${open.field}', got '${t.text}'`
          : `unexpected '${t.text}' with no open message`);
      }
      if (t.kind !== 'ident') throw new PbtxtSyntaxError(t.pos, `expected a field name, got ${describe(t)}`);
      this.next();
      entries.push({ key: t.text, keyPos: t.pos, value: this.fieldValue(t) });
      if (this.isPunct(',') || this.isPunct(';')) this.next();
    }
  }

  private fieldValue(name: Token): SyntaxNode {
    if (this.isPunct(':')) {
      this.next();
      return this.value(name.text);
    }
    if (this.isPunct('{') || this.isPunct('<') || this.isPunct('[')) return this.value(name.text);
    const t = this.peek();
    throw new PbtxtSyntaxError(t.pos, `expected ':' after field name '${name.text}', got ${describe(t)}`);
  }

  private value(field: string): SyntaxNode {
    const t = this.peek();
    if (t.kind === 'punct' && (t.text === '{' || t.text === '<')) {
      this.next();
      const node: ObjectNode = { type: 'object', style: 'message', entries: [], pos: t.pos };
      this.body(node.entries, { close: CLOSE[t.text]!, field, at: t });
      return node;
    }
    if (t.kind === 'punct' && t.text === '[') return this.list(field);
    return this.scalar(field);
  }

  private list(field: string): SyntaxNode {
    const open = this.next();
    const items: SyntaxNode[] = [];
    if (this.isPunct(']')) { this.next(); return { type: 'list', items, pos: open.pos }; }
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') {
        throw new PbtxtSyntaxError(open.pos, `missing ']': list for field '${field}' opened at ${open.pos.line}:${open.pos.col} is never closed (reached end of file)`);
      }
      items.push(this.value(field));
      const sep = this.peek();
      if (sep.kind === 'punct' && sep.text === ',') { this.next(); continue; }
      if (sep.kind === 'punct' && sep.text === ']') { this.next(); return { type: 'list', items, pos: open.pos }; }
      throw new PbtxtSyntaxError(sep.pos, `expected ',' or ']' in the list for field '${field}', got ${describe(sep)}`);
    }
  }

  private scalar(field: string): SyntaxNode {
    const t = this.next();
    if (t.kind === 'string') {
      let text = t.text;
      while (this.peek().kind === 'string') text += this.next().text;
      return { type: 'scalar', style: 'string', text, value: text, pos: t.pos };
    }
    if (t.kind === 'number') return { type: 'scalar', style: 'number', text: t.text, value: t.value!, pos: t.pos };
    if (t.kind === 'ident') return { type: 'scalar', style: 'ident', text: t.text, value: t.text, pos: t.pos };
    if (t.kind === 'punct' && t.text === '-') {
      const n = this.next();
      if (n.kind === 'number') return { type: 'scalar', style: 'number', text: `-${n.text}`, value: -n.value!, pos: t.pos };
      if (n.kind === 'ident' && /^(inf|infinity|nan)$/i.test(n.text)) {
        return { type: 'scalar', style: 'ident', text: `-${n.text}`, value: `-${n.text}`, pos: t.pos };
      }
      throw new PbtxtSyntaxError(n.pos, `expected a number after '-' for field '${field}', got ${describe(n)}`);
    }
    throw new PbtxtSyntaxError(t.pos, `expected a value for field '${field}', got ${describe(t)}`);
  }
}
