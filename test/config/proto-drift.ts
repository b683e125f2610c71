/**
 * Compares the parser's schema (src/config/config-schema.ts) and the ModelConfig interfaces
 * (src/config/model-config.ts, read with the TypeScript compiler) with the checked-in
 * model_config.proto, message by message, field by field, enum value by enum value. Each returns
 * a list of disagreements; an empty list means no drift.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import ts from 'typescript';
import type { EnumSchema, FieldSchema, MessageSchema } from '../../src/config/config-schema.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The description both are held to: Triton's messages with their names, numbers and types. */
const PROTO_FILE = join(ROOT, 'src/protocol/grpc/model_config.proto');

/**
 * Deliberate differences, keyed `Message.field`. `accepted`: fields the parser takes beyond the
 * proto; `refused`: proto fields the parser rejects as unknown. A field in neither list must agree.
 */
export interface Deviations {
  readonly accepted: Readonly<Record<string, string>>;
  readonly refused: Readonly<Record<string, string>>;
}

export function loadProto(): protobuf.Root {
  // keepCase: the config's JSON names are the proto's own (snake_case), not protobufjs' camelCase.
  const root = new protobuf.Root().loadSync(PROTO_FILE, { keepCase: true });
  root.resolveAll();
  return root;
}

/** `.inference.ModelInstanceGroup.Kind` -> `ModelInstanceGroup.Kind` (the schema's names). */
export const shortName = (o: protobuf.ReflectionObject): string => o.fullName.replace(/^\.inference\./, '');

/** Every message and enum the proto declares, nested ones included. */
export function declared(root: protobuf.Root): { messages: Set<string>; enums: Set<string> } {
  const messages = new Set<string>();
  const enums = new Set<string>();
  const walk = (ns: protobuf.NamespaceBase) => {
    for (const o of ns.nestedArray) {
      if (o instanceof protobuf.Type) messages.add(shortName(o));
      if (o instanceof protobuf.Enum) enums.add(shortName(o));
      if (o instanceof protobuf.Namespace || o instanceof protobuf.Type) walk(o);
    }
  };
  walk(root);
  return { messages, enums };
}

/** Enum values in number order; a gap would break the schema's "index = number" rule. */
function enumValues(e: protobuf.Enum, problems: string[]): string[] {
  const entries = Object.entries(e.values).sort((a, b) => a[1] - b[1]);
  entries.forEach(([name, n], i) => {
    if (n !== i) problems.push(`${shortName(e)}: ${name} = ${n} leaves a gap (expected ${i})`);
  });
  return entries.map(([name]) => name);
}

/** Groups of fields of which at most one may be set. A one-field oneof constrains nothing. */
function oneofGroups(t: protobuf.Type): string[] {
  return t.oneofsArray.filter((o) => o.oneof.length > 1).map((o) => [...o.oneof].sort().join('|')).sort();
}

/** Proto names reached, for coverage; schema objects compared (one object may be used twice). */
export interface Visited { messages: Set<string>; enums: Set<string>; schemas: Set<MessageSchema> }

export function compareSchema(schema: MessageSchema, type: protobuf.Type, dev: Deviations, problems: string[],
  visited: Visited = { messages: new Set(), enums: new Set(), schemas: new Set() }): Visited {
  const name = shortName(type);
  if (schema.name !== name) problems.push(`schema message '${schema.name}' stands for proto '${name}'`);
  if (visited.schemas.has(schema)) return visited;
  visited.schemas.add(schema);
  visited.messages.add(name);
  for (const f of type.fieldsArray) {
    const key = `${name}.${f.name}`;
    const field = schema.fields[f.name];
    if (key in dev.refused) {
      if (field) problems.push(`${key} is listed as refused but the schema accepts it`);
    } else if (!field) problems.push(`${key} (= ${f.id}, ${f.type}) is in the proto but not in the schema`);
    else compareField(field, f, key, dev, problems, visited);
  }
  for (const k of Object.keys(schema.fields)) {
    const key = `${name}.${k}`;
    if (!type.fields[k] && !(key in dev.accepted)) problems.push(`${key} is in the schema but not in the proto (nor listed as accepted)`);
  }
  const theirs = oneofGroups(type);
  const ours = (schema.oneofs ?? []).map((o) => [...o].sort().join('|')).sort();
  if (theirs.join(',') !== ours.join(',')) problems.push(`${name}: oneofs are [${ours.join(', ')}] in the schema, [${theirs.join(', ')}] in the proto`);
  return visited;
}

function compareField(field: FieldSchema, f: protobuf.Field, key: string, dev: Deviations, problems: string[], visited: Visited): void {
  const keyType = f instanceof protobuf.MapField ? f.keyType : undefined;
  if (field.mapKey !== keyType) problems.push(`${key}: map key ${field.mapKey ?? 'none'} in the schema, ${keyType ?? 'none'} in the proto`);
  if (!keyType && Boolean(field.repeated) !== f.repeated) problems.push(`${key}: repeated is ${Boolean(field.repeated)} in the schema, ${f.repeated} in the proto`);
  const t = field.type;
  const resolved = f.resolvedType;
  if (resolved instanceof protobuf.Type) {
    if (t.kind !== 'message') problems.push(`${key}: ${t.kind} in the schema, message ${shortName(resolved)} in the proto`);
    else compareSchema(t.message, resolved, dev, problems, visited);
  } else if (resolved instanceof protobuf.Enum) {
    if (t.kind !== 'enum') problems.push(`${key}: ${t.kind} in the schema, enum ${shortName(resolved)} in the proto`);
    else compareEnum(t.enum, resolved, problems, visited);
  } else if (t.kind !== f.type) problems.push(`${key}: ${t.kind} in the schema, ${f.type} in the proto`);
}

function compareEnum(e: EnumSchema, pe: protobuf.Enum, problems: string[], visited: Visited): void {
  const name = shortName(pe);
  visited.enums.add(name);
  if (e.name !== name) problems.push(`schema enum '${e.name}' stands for proto '${name}'`);
  const values = enumValues(pe, problems);
  if (values.join(',') !== e.values.join(',')) problems.push(`${name}: values [${e.values.join(', ')}] in the schema, [${values.join(', ')}] in the proto (number order)`);
}

/** The exported types of one source file, checked by the compiler with the project's settings. */
export function loadTypes(file: string): { checker: ts.TypeChecker; types: Map<string, ts.Type> } {
  const program = ts.createProgram([file], {
    strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, skipLibCheck: true, types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`TypeScript did not load ${file}`);
  const types = new Map<string, ts.Type>();
  for (const s of checker.getExportsOfModule(checker.getSymbolAtLocation(source)!)) {
    const sym = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
    if (sym.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) types.set(s.name, checker.getDeclaredTypeOfSymbol(sym));
  }
  return { checker, types };
}

const SCALAR_TS: Readonly<Record<string, string>> = {
  string: 'string', bool: 'boolean', bytes: 'string',
  int32: 'number', uint32: 'number', int64: 'number', uint64: 'number', float: 'number', double: 'number',
};

/** The interface `type` against the proto message: same fields, and each of the matching shape. */
export function compareTs(checker: ts.TypeChecker, type: ts.Type, msg: protobuf.Type, dev: Deviations, problems: string[],
  path = shortName(msg)): void {
  // model_config.proto has no recursive messages, so the walk needs no visited set.
  const name = shortName(msg);
  const props = new Map(checker.getPropertiesOfType(type).map((p) => [p.name, p]));
  for (const f of msg.fieldsArray) {
    const key = `${name}.${f.name}`;
    const prop = props.get(f.name);
    if (key in dev.refused) {
      if (prop) problems.push(`${path}.${f.name} is listed as refused but the type declares it`);
    } else if (!prop) problems.push(`${path}.${f.name} (${key}) is in the proto but not in the type`);
    else compareTsField(checker, checker.getNonNullableType(checker.getTypeOfSymbol(prop)), f, dev, problems, `${path}.${f.name}`);
  }
  for (const k of props.keys()) {
    if (!msg.fields[k] && !(`${name}.${k}` in dev.accepted)) problems.push(`${path}.${k} is in the type but not in the proto (nor listed as accepted)`);
  }
}

function compareTsField(checker: ts.TypeChecker, t: ts.Type, f: protobuf.Field, dev: Deviations, problems: string[], path: string): void {
  let value = t;
  if (f instanceof protobuf.MapField) {
    const index = checker.getIndexInfosOfType(t).find((i) => i.keyType.flags & ts.TypeFlags.String);
    if (!index || checker.getPropertiesOfType(t).length > 0) {
      problems.push(`${path}: a map in the proto, ${checker.typeToString(t)} in the type`);
      return;
    }
    value = index.type;
  } else if (f.repeated) {
    if (!checker.isArrayType(t)) {
      problems.push(`${path}: repeated in the proto, ${checker.typeToString(t)} in the type`);
      return;
    }
    value = checker.getTypeArguments(t as ts.TypeReference)[0]!;
  }
  const resolved = f.resolvedType;
  const shown = checker.typeToString(value);
  if (resolved instanceof protobuf.Type) {
    if (!(value.flags & ts.TypeFlags.Object) || checker.isArrayType(value)) problems.push(`${path}: message ${shortName(resolved)} in the proto, ${shown} in the type`);
    else compareTs(checker, value, resolved, dev, problems, path);
  } else if (resolved instanceof protobuf.Enum) {
    const members = value.isUnion() ? value.types : [value];
    const literals = members.map((m) => (m.isStringLiteral() ? m.value : `<${checker.typeToString(m)}>`)).sort();
    const expected = Object.keys(resolved.values).sort();
    if (literals.join(',') !== expected.join(',')) problems.push(`${path}: enum ${shortName(resolved)} is [${expected.join(' | ')}], the type is ${shown}`);
  } else if (SCALAR_TS[f.type] !== shown) problems.push(`${path}: ${f.type} in the proto wants ${SCALAR_TS[f.type]}, the type is ${shown}`);
}
