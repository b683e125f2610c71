/**
 * config.yaml / JSON text -> syntax tree, with positions from the `yaml` package's LineCounter.
 * JSON goes through the same parser with the `json` schema (JSON is YAML's flow subset), so
 * both report syntax errors and positions the same way.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { ConfigProblem, SourcePosition } from './config-problem.js';
import { scalarOffsets } from './scalar-offsets.js';
import type { Entry, ObjectNode, ScalarNode, SyntaxNode } from './syntax-tree.js';

export interface YamlResult { tree: SyntaxNode; problems: ConfigProblem[] }

export function parseYaml(text: string, file: string, format: 'yaml' | 'json'): YamlResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter, prettyErrors: false, uniqueKeys: true, schema: format === 'json' ? 'json' : 'core',
  });
  const problems: ConfigProblem[] = [];
  const at = (offset: number): SourcePosition => lineCounter.linePos(offset);
  for (const e of [...doc.errors, ...doc.warnings]) {
    const pos = at(e.pos[0]);
    const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    problems.push({ file, ...pos, path: '', message: `${format} ${e.name === 'YAMLWarning' ? 'warning' : 'syntax error'}: ${message}`,
      severity: e.name === 'YAMLWarning' ? 'warning' : 'error' });
  }
  const empty: ObjectNode = { type: 'object', style: 'mapping', entries: [], pos: { line: 1, col: 1 } };
  const tree = doc.contents ? toTree(doc.contents as Node, doc, at, file, problems, 0, format, text) : empty;
  return { tree, problems };
}

function toTree(node: Node, doc: Document, at: (o: number) => SourcePosition, file: string,
  problems: ConfigProblem[], depth: number, format: 'yaml' | 'json', text: string): SyntaxNode {
  const pos = at(node.range?.[0] ?? 0);
  if (isAlias(node)) {
    const target = depth < 32 ? node.resolve(doc) : undefined;
    if (target) return toTree(target, doc, at, file, problems, depth + 1, format, text);
    problems.push({ file, ...pos, path: '', message: `unresolved alias '*${node.source}'`, severity: 'error' });
    return { type: 'scalar', style: 'null', text: 'null', value: null, pos };
  }
  if (isMap(node)) {
    const entries: Entry[] = [];
    for (const pair of node.items) {
      const k = pair.key as Node | null;
      const keyPos = at(k?.range?.[0] ?? node.range?.[0] ?? 0);
      if (!isScalar(k)) {
        problems.push({ file, ...keyPos, path: '', message: 'mapping keys must be plain names', severity: 'error' });
        continue;
      }
      const value: SyntaxNode = pair.value
        ? toTree(pair.value as Node, doc, at, file, problems, depth + 1, format, text)
        : { type: 'scalar', style: 'null', text: '', value: null, pos: keyPos };
      entries.push({ key: String(k.value), keyPos, value });
    }
    return { type: 'object', style: 'mapping', entries, pos };
  }
  if (isSeq(node)) {
    return { type: 'list', items: node.items.map((n) => toTree(n as Node, doc, at, file, problems, depth + 1, format, text)), pos };
  }
  if (isScalar(node)) {
    const s = withInside(scalar(node.value, node.type, node.source, pos), node.range, node.type, text, at);
    // JSON literals are typed: a bare 5 is a number, never the text "5".
    if (format === 'json' && s.style === 'plain') {
      const style = s.value === null ? 'null' : typeof s.value === 'boolean' ? 'bool' : 'number';
      return { ...s, style };
    }
    return s;
  }
  return { type: 'scalar', style: 'null', text: 'null', value: null, pos };
}

/** A string's character positions, rebuilt from its source spelling on first use (only a problem inside it asks). */
function withInside(s: ScalarNode, range: Node['range'], type: string | undefined, text: string, at: (o: number) => SourcePosition): ScalarNode {
  if (typeof s.value !== 'string' || !range) return s;
  const value = s.value;
  let offsets: number[] | undefined | null = null;
  const inside = (offset: number): SourcePosition => {
    if (offsets === null) offsets = scalarOffsets(text, range[0], range[1], type, value);
    const o = offsets?.[Math.max(0, Math.min(offset, offsets.length - 1))];
    if (o !== undefined) return at(o);
    // Not rebuilt (a folded block with more-indented lines, an explicit indentation indicator):
    // a block scalar points at its start; a one-line string counts from after its quote.
    if (type?.startsWith('BLOCK')) return s.pos;
    return { line: s.pos.line, col: s.pos.col + offset + (type === 'PLAIN' ? 0 : 1) };
  };
  return { ...s, inside };
}

function scalar(value: unknown, type: string | undefined, source: unknown, pos: SourcePosition): ScalarNode {
  const text = typeof source === 'string' ? source : String(value);
  if (type !== undefined && type !== 'PLAIN') return { type: 'scalar', style: 'string', text: String(value), value: String(value), pos };
  if (value === null || value === undefined) return { type: 'scalar', style: 'plain', text, value: null, pos };
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') {
    return { type: 'scalar', style: 'plain', text, value, pos };
  }
  return { type: 'scalar', style: 'plain', text, value: Number(value), pos };
}
