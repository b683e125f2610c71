/**
 * Text (pbtxt, YAML, JSON) or an already-parsed JSON object -> ParsedConfig: syntax tree, one
 * schema-driven conversion, Triton's defaults. Never throws for bad input: every syntax and
 * schema problem is in `problems`, named by model and path, at file:line:col.
 */
import type { ConfigProblem, ParsedConfig, SourcePosition } from './config-problem.js';
import { MODEL_CONFIG } from './config-schema.js';
import { convertMessage, type ConvertContext, type SourceFormat } from './convert-tree.js';
import { normalizeConfig } from './normalize-config.js';
import { parsePbtxt } from './parse-pbtxt.js';
import { parseYaml } from './parse-yaml.js';
import { desugarSteps } from './pipeline-sugar.js';
import { treeFromValue, type SyntaxNode } from './syntax-tree.js';

export function parseConfigText(text: string, file: string, format: 'pbtxt' | 'yaml' | 'json', options: { name?: string } = {}): ParsedConfig {
  if (format === 'pbtxt') {
    const { tree, problems } = parsePbtxt(text, file);
    return build(tree, file, format, problems, options);
  }
  const { tree, problems } = parseYaml(text, file, format);
  return build(format === 'yaml' ? desugarSteps(tree, file, problems) : tree, file, format, problems, options);
}

/** For JSON that is already an object (the repository load API's `config` override). */
export function configFromJsonObject(obj: unknown, file: string, options: { name?: string } = {}): ParsedConfig {
  return build(treeFromValue(obj), file, 'object', [], options);
}

function build(tree: SyntaxNode, file: string, format: SourceFormat, syntax: ConfigProblem[], options: { name?: string }): ParsedConfig {
  const positions = new Map<string, SourcePosition>();
  const ctx: ConvertContext = { file, format, problems: [], positions, written: new Map() };
  const partial = convertMessage(tree, MODEL_CONFIG, '', ctx) ?? {};
  const config = normalizeConfig(partial, options);
  const name = config.name || options.name;
  const problems = [...syntax, ...ctx.problems].map((p) => (name ? { ...p, message: `model '${name}': ${p.message}` } : p));
  return { config, file, positions, problems };
}
