/**
 * The one schema-driven converter: syntax tree (from pbtxt, YAML, JSON or a plain object) ->
 * the fields present in the source, typed per model_config.proto, with the position of every
 * value. Each problem is recorded with its path and position and conversion carries on, so a
 * file's problems are all reported at once. Defaults are not filled here (see normalizeConfig).
 * Longer than most files: the message, map, repeated, enum and scalar rules are one recursion that
 * shares the problem and position bookkeeping, and reads best in one place.
 */
import { isDataType, toConfigType } from '../tensor/index.js';
import type { ConfigProblem, SourcePosition } from './config-problem.js';
import { DATA_TYPE, ENSEMBLE_STEP, type EnumSchema, type FieldSchema, type FieldType, type MessageSchema, type ScalarKind } from './config-schema.js';
import { closest } from './closest.js';
import { STEP_ALIASES } from './pipeline-sugar.js';
import type { Entry, ObjectNode, ScalarNode, SyntaxNode } from './syntax-tree.js';

export type SourceFormat = 'pbtxt' | 'yaml' | 'json' | 'object';

export interface ConvertContext {
  readonly file: string;
  readonly format: SourceFormat;
  readonly problems: ConfigProblem[];
  readonly positions: Map<string, SourcePosition>;
  /**
   * Config path -> the path as the user wrote it, for keys the YAML pipeline sugar renamed
   * (`ensemble_scheduling.step` was written `steps`), so messages name what is in the file.
   */
  readonly written: Map<string, string>;
}

type Obj = Record<string, unknown>;

/** Spellings from other frameworks, used only to suggest the right DataType. */
const TYPE_HINTS: Record<string, string> = {
  FLOAT: 'TYPE_FP32', FLOAT32: 'TYPE_FP32', HALF: 'TYPE_FP16', FLOAT16: 'TYPE_FP16', DOUBLE: 'TYPE_FP64', FLOAT64: 'TYPE_FP64',
  BYTES: 'TYPE_STRING', STR: 'TYPE_STRING', INT: 'TYPE_INT32', LONG: 'TYPE_INT64', BFLOAT16: 'TYPE_BF16',
};
const RANGES: Partial<Record<ScalarKind, [number, number]>> = {
  int32: [-(2 ** 31), 2 ** 31 - 1], uint32: [0, 2 ** 32 - 1],
  int64: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER], uint64: [0, Number.MAX_SAFE_INTEGER],
};

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function describe(node: SyntaxNode): string {
  if (node.type === 'list') return 'a list';
  if (node.type === 'object') return 'a message';
  if (node.style === 'string') return `string ${JSON.stringify(node.text)}`;
  if (node.style === 'null') return 'nothing (null)';
  return `'${node.text}'`;
}

/** `path` as the user wrote it: the longest renamed prefix (ConvertContext.written) replaced. */
function shown(ctx: ConvertContext, path: string): string {
  let best = '';
  for (const from of ctx.written.keys()) {
    const under = path === from || path.startsWith(`${from}.`) || path.startsWith(`${from}[`);
    if (under && from.length > best.length) best = from;
  }
  return best ? ctx.written.get(best)! + path.slice(best.length) : path;
}

/** The name messages give a message type: its label (the pipeline's own), else its proto name. */
const typeName = (schema: MessageSchema) => schema.label ?? schema.name;

function problem(ctx: ConvertContext, pos: SourcePosition, path: string, message: string, severity: 'error' | 'warning' = 'error',
  prefix = true): void {
  ctx.problems.push({ file: ctx.file, line: pos.line, col: pos.col, path, message: path && prefix ? `${shown(ctx, path)}: ${message}` : message, severity });
}

/** Triton's fields of a message (no YAML-only ones), for messages about pbtxt and JSON configs. */
const tritonFields = (schema: MessageSchema) => Object.keys(schema.fields).filter((k) => !schema.fields[k]!.yamlOnly);

export function convertMessage(node: SyntaxNode, schema: MessageSchema, path: string, ctx: ConvertContext): Obj | undefined {
  if (node.type !== 'object') {
    problem(ctx, node.pos, path, `expected a message (${typeName(schema)}), got ${describe(node)}`);
    return undefined;
  }
  const out: Obj = {};
  const seen = new Map<string, SourcePosition>();
  for (const entry of node.entries) {
    // Own fields only: a key named like an Object.prototype member (constructor, __proto__) is unknown.
    const field = Object.hasOwn(schema.fields, entry.key) ? schema.fields[entry.key] : undefined;
    const fpath = join(path, entry.key);
    if (entry.written) ctx.written.set(fpath, join(entry.written.atTop ? '' : shown(ctx, path), entry.written.key));
    if (!field) {
      unknownField(ctx, entry, schema, path);
      continue;
    }
    if (field.yamlOnly && ctx.format !== 'yaml') {
      const file = ctx.format === 'pbtxt' ? 'config.pbtxt' : 'a JSON config';
      const keeps = schema.label ? `a ${schema.label} in ${file} has Triton's fields only (${tritonFields(schema).join(', ')})` : `${file} keeps Triton's ${schema.name} schema`;
      problem(ctx, entry.keyPos, fpath, `'${entry.key}' is pipeline control flow, which is YAML-only: ${keeps}; write this pipeline as config.yaml`);
      continue;
    }
    if (field.pbtxtRefused && ctx.format === 'pbtxt') {
      problem(ctx, entry.keyPos, fpath, `'${entry.key}' is ${field.pbtxtRefused}, beyond Triton's ModelConfig that config.pbtxt keeps; write this model's config as config.yaml or config.json`, 'error', false);
      continue;
    }
    // Where a string's text starts (after its quote), and where each of its characters was
    // written (YAML/JSON), so a problem at an offset inside it, such as in a control-flow
    // condition, is reported at its own line and column even across escapes and folded lines.
    if (field.type.kind === 'string' && !field.repeated && !field.mapKey && entry.value.type === 'scalar') {
      const v = entry.value;
      const start = v.style === 'string' ? { line: v.pos.line, col: v.pos.col + 1 } : { ...v.pos };
      ctx.positions.set(`${fpath}#text`, v.inside ? { ...start, inside: v.inside } : start);
    }
    if (!field.repeated && !field.mapKey) {
      const first = seen.get(entry.key);
      if (first) {
        // YAML/JSON duplicate keys were already reported by the parser.
        if (node.style === 'message') problem(ctx, entry.keyPos, fpath, `field '${entry.key}' is set more than once (first at ${first.line}:${first.col})`);
        continue;
      }
      const other = oneofConflict(schema, entry.key, seen);
      if (other) {
        problem(ctx, entry.keyPos, fpath, `'${entry.key}' cannot be set together with '${other}' (only one of ${
          schema.oneofs!.find((o) => o.includes(entry.key))!.join(', ')} may be set)`);
        continue;
      }
    }
    if (!seen.has(entry.key)) {
      seen.set(entry.key, entry.keyPos);
      ctx.positions.set(fpath, entry.keyPos);
    }
    if (field.mapKey) convertMap(entry, field, fpath, out, ctx);
    else if (field.repeated) convertRepeated(entry, field.type, fpath, out, ctx);
    else {
      if (entry.value.type === 'list') {
        problem(ctx, entry.value.pos, fpath, `expected a single value, got a list ('${entry.key}' is not a repeated field)`);
        continue;
      }
      const v = convertValue(entry.value, field.type, fpath, ctx);
      if (v !== undefined) out[entry.key] = v;
    }
  }
  return out;
}

function oneofConflict(schema: MessageSchema, key: string, seen: Map<string, SourcePosition>): string | undefined {
  const group = schema.oneofs?.find((o) => o.includes(key));
  return group?.find((k) => k !== key && seen.has(k));
}

function unknownField(ctx: ConvertContext, entry: Entry, schema: MessageSchema, path: string): void {
  const names = ctx.format === 'yaml' ? Object.keys(schema.fields) : tritonFields(schema);
  // A step under the YAML `steps:` sugar also takes its spellings (pipeline-sugar.ts): suggest
  // and list them, since they are what the user was writing.
  const sugar = schema === ENSEMBLE_STEP && ctx.written.has('ensemble_scheduling.step');
  const spellings = sugar ? Object.keys(STEP_ALIASES).filter((k) => STEP_ALIASES[k] !== k && k !== 'name') : [];
  const guess = closest(entry.key, [...spellings, ...names]);
  const where = path ? `in ${shown(ctx, path)} (${typeName(schema)})` : `in ${typeName(schema)}`;
  const known = sugar
    ? `${spellings.join(', ')} (or ${spellings.map((k) => STEP_ALIASES[k]).join(', ')}), ${names.filter((n) => !spellings.some((k) => STEP_ALIASES[k] === n)).join(', ')}`
    : names.join(', ');
  const hint = guess ? `; did you mean '${guess}'?` : names.length <= 12 ? `; known fields: ${known}` : '';
  problem(ctx, entry.keyPos, join(path, entry.key), `unknown field '${entry.key}' ${where}${hint}`, 'error', false);
}

function convertRepeated(entry: Entry, type: FieldType, fpath: string, out: Obj, ctx: ConvertContext): void {
  const node = entry.value;
  let items: { node: SyntaxNode; pos: SourcePosition }[];
  if (node.type === 'list') items = node.items.map((n) => ({ node: n, pos: n.pos }));
  else if (ctx.format === 'pbtxt') items = [{ node, pos: entry.keyPos }];
  else {
    problem(ctx, node.pos, fpath, `expected a list, got ${describe(node)}`);
    return;
  }
  const arr = (out[entry.key] ??= []) as unknown[];
  for (const { node: item, pos } of items) {
    const ipath = `${fpath}[${arr.length}]`;
    if (item.type === 'list') {
      problem(ctx, item.pos, ipath, 'expected a single value, got a nested list');
      continue;
    }
    ctx.positions.set(ipath, pos);
    const v = convertValue(item, type, ipath, ctx);
    // Keep indices aligned with the source so later paths point at the right item.
    arr.push(v === undefined ? placeholder(type) : v);
  }
}

function placeholder(type: FieldType): unknown {
  if (type.kind === 'message') return {};
  if (type.kind === 'enum') return type.enum.values[0];
  if (type.kind === 'string') return '';
  if (type.kind === 'bool') return false;
  return 0;
}

function convertMap(entry: Entry, field: FieldSchema, fpath: string, out: Obj, ctx: ConvertContext): void {
  const target = (out[entry.key] ??= {}) as Obj;
  const node = entry.value;
  if (node.type === 'object' && node.style === 'mapping') {
    for (const e of node.entries) {
      const key = mapKey(e.key, e.keyPos, field, fpath, ctx);
      if (key !== undefined) putMapValue(target, key, e.value, e.keyPos, field, fpath, ctx);
    }
    return;
  }
  const entries = node.type === 'list' ? node.items : [node];
  for (const item of entries) {
    if (item.type !== 'object') {
      problem(ctx, item.pos, fpath, `expected a map entry { key: ... value: ... }, got ${describe(item)}`);
      continue;
    }
    mapEntry(item, field, fpath, target, ctx);
  }
}

function mapEntry(item: ObjectNode, field: FieldSchema, fpath: string, target: Obj, ctx: ConvertContext): void {
  let keyNode: SyntaxNode | undefined;
  let valueNode: SyntaxNode | undefined;
  for (const e of item.entries) {
    if (e.key === 'key' && !keyNode) keyNode = e.value;
    else if (e.key === 'value' && !valueNode) valueNode = e.value;
    else problem(ctx, e.keyPos, fpath, `unexpected '${e.key}' in a map entry; a map entry has exactly 'key' and 'value'`);
  }
  if (!keyNode) {
    problem(ctx, item.pos, fpath, "map entry is missing 'key'");
    return;
  }
  if (keyNode.type !== 'scalar' || keyNode.style === 'null') {
    problem(ctx, keyNode.pos, fpath, `map key must be a ${field.mapKey === 'uint64' ? 'number' : 'string'}, got ${describe(keyNode)}`);
    return;
  }
  if (field.mapKey === 'string' && ctx.format === 'pbtxt' && keyNode.style !== 'string') {
    problem(ctx, keyNode.pos, fpath, `map key must be a quoted string, got ${describe(keyNode)}`);
    return;
  }
  const key = mapKey(String(keyNode.value), keyNode.pos, field, fpath, ctx);
  if (key === undefined) return;
  const value: SyntaxNode = valueNode ?? (field.type.kind === 'message'
    ? { type: 'object', style: 'message', entries: [], pos: item.pos }
    : { type: 'scalar', style: 'string', text: '', value: '', pos: item.pos });
  putMapValue(target, key, value, keyNode.pos, field, fpath, ctx);
}

function mapKey(key: string, pos: SourcePosition, field: FieldSchema, fpath: string, ctx: ConvertContext): string | undefined {
  if (field.mapKey === 'uint64' && !/^\d+$/.test(key)) {
    problem(ctx, pos, fpath, `map key must be a non-negative integer, got '${key}'`);
    return undefined;
  }
  return field.mapKey === 'uint64' ? String(Number(key)) : key;
}

function putMapValue(target: Obj, key: string, node: SyntaxNode, pos: SourcePosition, field: FieldSchema,
  fpath: string, ctx: ConvertContext): void {
  const kpath = `${fpath}.${key}`;
  if (Object.hasOwn(target, key)) problem(ctx, pos, kpath, `duplicate map key '${key}'; the last one wins`, 'warning');
  ctx.positions.set(kpath, pos);
  // YAML convenience: `parameters: { KEY: value }` means { string_value: value }.
  if (ctx.format === 'yaml' && field.type.kind === 'message' && field.type.message.name === 'ModelParameter' && node.type === 'scalar') {
    const v = convertScalar(node, 'string', `${kpath}.string_value`, ctx);
    if (v !== undefined) setOwn(target, key, { string_value: v });
    return;
  }
  const v = convertValue(node, field.type, kpath, ctx);
  if (v !== undefined) setOwn(target, key, v);
}

/** A map key is data: `__proto__` must become an entry, not the map's prototype. */
function setOwn(target: Obj, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function convertValue(node: SyntaxNode, type: FieldType, path: string, ctx: ConvertContext): unknown {
  if (type.kind === 'message') return convertMessage(node, type.message, path, ctx);
  if (type.kind === 'enum') return convertEnum(node, type.enum, path, ctx);
  return convertScalar(node, type.kind, path, ctx);
}

function convertEnum(node: SyntaxNode, e: EnumSchema, path: string, ctx: ConvertContext): string | undefined {
  if (node.type !== 'scalar') {
    problem(ctx, node.pos, path, `expected a ${e.name} value, got ${describe(node)}`);
    return undefined;
  }
  if (node.style === 'number' && Number.isInteger(node.value) && e.values[node.value as number] !== undefined) {
    return e.values[node.value as number];
  }
  const quotedInPbtxt = ctx.format === 'pbtxt' && node.style === 'string';
  const name = String(node.value);
  if (e.values.includes(name) && !quotedInPbtxt) return name;
  // YAML convenience: the wire spelling (FP32, BYTES) stands for the config one.
  if (ctx.format === 'yaml' && e === DATA_TYPE && isDataType(name)) return toConfigType(name);
  if (quotedInPbtxt && e.values.includes(name)) {
    problem(ctx, node.pos, path, `enum value must not be quoted: write ${name} instead of "${name}"`);
    return undefined;
  }
  const guess = (e === DATA_TYPE ? TYPE_HINTS[name.replace(/^TYPE_/, '').toUpperCase()] : undefined)
    ?? e.values.find((v) => v.endsWith(`_${name}`)) ?? closest(name, e.values);
  problem(ctx, node.pos, path, `invalid ${e.name} value ${describe(node)}${guess ? ` (did you mean ${guess}?)` : ''}; allowed: ${e.values.join(', ')}`);
  return undefined;
}

const KIND_TEXT: Record<ScalarKind, string> = {
  string: 'a string', bool: 'true or false', int32: 'an int32', uint32: 'a uint32 (integer >= 0)',
  int64: 'an int64', uint64: 'a uint64 (integer >= 0)', float: 'a number', double: 'a number',
};

function convertScalar(node: SyntaxNode, kind: ScalarKind, path: string, ctx: ConvertContext): string | number | boolean | undefined {
  const bad = (extra = '') => {
    problem(ctx, node.pos, path, `expected ${KIND_TEXT[kind]}, got ${describe(node)}${extra}`);
    return undefined;
  };
  if (node.type !== 'scalar') return bad();
  if (kind === 'string') {
    if (node.style === 'string') return String(node.value);
    if (node.style === 'plain' && node.value !== null) return node.text;
    return bad(ctx.format === 'pbtxt' && node.style === 'ident' ? ` (strings must be quoted: "${node.text}")` : '');
  }
  if (kind === 'bool') return toBool(node) ?? bad();
  const n = toNumber(node, ctx.format);
  if (n === undefined) return bad();
  if (kind === 'float' || kind === 'double') return n;
  if (!Number.isInteger(n)) return bad();
  const [lo, hi] = RANGES[kind]!;
  if (n < lo || n > hi) return bad(` (out of range [${lo}, ${hi}])`);
  return n;
}

function toBool(node: ScalarNode): boolean | undefined {
  if (node.style === 'bool') return node.value as boolean;
  if (node.style === 'plain' && typeof node.value === 'boolean') return node.value;
  if (node.style === 'ident') {
    if (/^(true|True|t)$/.test(node.text)) return true;
    if (/^(false|False|f)$/.test(node.text)) return false;
  }
  if (node.style === 'number' && (node.value === 0 || node.value === 1) && /^[01]$/.test(node.text)) return node.value === 1;
  return undefined;
}

function toNumber(node: ScalarNode, format: SourceFormat): number | undefined {
  if (node.style === 'number') return node.value as number;
  if (node.style === 'plain' && typeof node.value === 'number') return node.value;
  if (node.style === 'ident') {
    const m = /^(-?)(inf|infinity|nan)$/i.exec(node.text);
    if (m) return m[2]!.toLowerCase() === 'nan' ? NaN : m[1] ? -Infinity : Infinity;
  }
  // Protobuf JSON writes 64-bit integers as strings ("max_queue_delay_microseconds": "100").
  if (node.style === 'string' && (format === 'json' || format === 'object')) {
    const s = String(node.value).trim();
    if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(s)) return Number(s);
    if (s === 'NaN') return NaN;
    if (s === 'Infinity' || s === '-Infinity') return s.startsWith('-') ? -Infinity : Infinity;
  }
  return undefined;
}
