import { formatProblems, positionOf, type ConfigProblem, type ModelConfig, type ParsedConfig } from '../config/index.js';
import { compileExperiment, renderExperimentDot, renderExperimentMermaid } from '../experiment/index.js';

/**
 * `tributary graph EXPERIMENT`: the split between its variants and its mirror. `problems` are the
 * repository's as `tributary validate` reports them: the experiment's own are fatal here.
 */
export function graphExperiment(parsed: ParsedConfig, problems: readonly ConfigProblem[], configs: ReadonlyMap<string, ModelConfig>, format: 'mermaid' | 'dot'): number {
  const own = problems.filter((p) => p.file === parsed.file && p.severity === 'error');
  const compiled = own.length === 0 ? compileExperiment(parsed.config, (m) => configs.get(m), (path) => positionOf(parsed, path), [...configs.keys()]) : undefined;
  if (!compiled?.plan) {
    process.stderr.write(formatProblems(own.length ? own : compiled?.problems ?? []) + '\n');
    return 1;
  }
  process.stdout.write((format === 'dot' ? renderExperimentDot(compiled.plan) : renderExperimentMermaid(compiled.plan)) + '\n');
  return 0;
}
