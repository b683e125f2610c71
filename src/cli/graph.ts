import { BackendRegistry } from '../backend/index.js';
import { isEnsemble, isExperiment, positionOf, formatProblems } from '../config/index.js';
import { Errors } from '../errors.js';
import { compilePipeline, renderDot, renderMermaid } from '../pipeline/index.js';
import { checkExperiments, readRepositoryConfigs, shownPath, unknownStepHints } from '../repository/index.js';
import { defaultBackends } from '../server/index.js';
import { BUILTIN_PIPELINES } from './builtin-pipelines.js';
import { parseFlags, listFlag } from './flags.js';
import { graphExperiment } from './graph-experiment.js';

const GRAPH_HELP = `Usage: tributary graph <pipeline> [--model-repository=<dir>]... [--format=mermaid|dot]

Print a pipeline's compiled step graph as Mermaid (default) or Graphviz DOT; for an experiment,
its split between variants (with their weights) and its mirror. --model-repository may be
repeated: the pipeline and its step models may be in different repositories (default: the
built-in pipelines, ./pipelines). A pipeline of your own over the built-in models:

  tributary graph text_stats --model-repository pipelines --model-repository my-models
`;

export async function graph(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags('graph', argv, {
    'model-repository': { type: 'string', multiple: true },
    format: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help || positionals.length !== 1) {
    (values.help ? process.stdout : process.stderr).write(GRAPH_HELP);
    return values.help ? 0 : 2;
  }
  const format = String(values.format ?? 'mermaid');
  if (format !== 'mermaid' && format !== 'dot') throw Errors.cliFlagChoice('format', 'mermaid or dot', format);
  const repos = listFlag(values['model-repository']);
  const name = positionals[0]!;
  const registry = new BackendRegistry();
  for (const b of defaultBackends()) registry.register(b);
  // Step configs are read as a load would read them (auto-completed from model files), so a
  // pipeline over config-less ONNX steps draws; only the pipeline's own problems are fatal here.
  const searched = repos.length ? repos : ['pipelines'];
  const read = await readRepositoryConfigs(searched, registry);
  // Experiments get their variants' interface, as at load, so a pipeline that calls one compiles.
  checkExperiments(read);
  const { configs, parsed: parsedByName } = read;
  const parsed = parsedByName.get(name);
  if (!parsed) throw Errors.graphModelNotFound(name, searched.map(shownPath).join(', '));
  if (isExperiment(parsed.config)) return graphExperiment(parsed, read.problems, configs, format);
  if (!isEnsemble(parsed.config)) throw Errors.graphNotPipeline(name);
  const compiled = compilePipeline(parsed.config, (m) => (m === name ? undefined : configs.get(m)), (path, offset) => positionOf(parsed, path, offset), [...configs.keys()]);
  if (!compiled.plan) {
    const hints = await unknownStepHints(new Map([[name, parsed.config]]), searched, [BUILTIN_PIPELINES]);
    const hint = (m: string | undefined) => (m === undefined ? '' : hints.get(m) ?? '');
    process.stderr.write(formatProblems(compiled.problems.map((p) => ({
      file: p.file ?? parsed.file, line: p.line ?? 1, col: p.col ?? 1, path: p.path, message: p.message + hint(p.unknownModel), severity: p.severity,
    }))) + '\n');
    return 1;
  }
  process.stdout.write((format === 'dot' ? renderDot(compiled.plan) : renderMermaid(compiled.plan)) + '\n');
  return 0;
}
