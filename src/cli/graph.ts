import { BackendRegistry } from '../backend/index.js';
import { isEnsemble, positionOf, formatProblems, type ModelConfig } from '../config/index.js';
import { Errors } from '../errors.js';
import { compilePipeline, renderDot, renderMermaid } from '../pipeline/index.js';
import { findModels, readModelConfig } from '../repository/index.js';
import { parseFlags, listFlag } from './flags.js';

export const GRAPH_HELP = `Usage: tributary graph <pipeline> [--model-repository=<dir>] [--format=mermaid|dot]

Print a pipeline's compiled step graph as Mermaid (default) or Graphviz DOT.
`;

export async function graph(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags('graph', argv, {
    'model-repository': { type: 'string', multiple: true },
    format: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help || positionals.length !== 1) {
    process.stdout.write(GRAPH_HELP);
    return values.help ? 0 : 2;
  }
  const format = String(values.format ?? 'mermaid');
  if (format !== 'mermaid' && format !== 'dot') throw Errors.invalidArg(`--format must be mermaid or dot, got '${format}'`);
  const repos = listFlag(values['model-repository']);
  const found = await findModels(repos.length ? repos : ['pipelines']);
  const name = positionals[0]!;
  const dir = found.get(name);
  if (!dir) throw Errors.modelNotFound(name);
  const parsed = await readModelConfig(dir);
  if (!isEnsemble(parsed.config)) throw Errors.invalidArg(`model '${name}' is not a pipeline (no ensemble_scheduling / steps)`);
  const configs = new Map<string, ModelConfig>();
  for (const [m, d] of found) {
    if (m === name) continue;
    const p = await readModelConfig(d).catch(() => undefined);
    if (p) configs.set(m, p.config);
  }
  void BackendRegistry;
  // Step configs are read as written (no auto-complete): graph only needs names and bindings.
  const compiled = compilePipeline(parsed.config, (m) => configs.get(m), (path) => positionOf(parsed, path));
  if (!compiled.plan) {
    process.stderr.write(formatProblems(compiled.problems.map((p) => ({ file: p.file ?? parsed.file, line: p.line ?? 1, col: p.col ?? 1, path: p.path, message: p.message, severity: p.severity }))) + '\n');
    return 1;
  }
  process.stdout.write((format === 'dot' ? renderDot(compiled.plan) : renderMermaid(compiled.plan)) + '\n');
  return 0;
}
