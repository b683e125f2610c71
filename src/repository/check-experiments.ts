import {
  experimentModelPath, experimentModels, isEnsemble, isExperiment, pipelineStepModels, positionOf, type ConfigProblem, type ModelConfig, type ParsedConfig,
} from '../config/index.js';
import { Errors } from '../errors.js';
import { compileExperiment } from '../experiment/index.js';
import { findDependencyCycle } from './find-dependency-cycle.js';

/** What validate-repository.ts read: every config as a load sees it, and the problems so far. */
interface ReadConfigs {
  problems: ConfigProblem[];
  configs: Map<string, ModelConfig>;
  parsed: ReadonlyMap<string, ParsedConfig>;
}

/**
 * `tributary validate`'s checks of every experiment, as a load makes them: no loop through its
 * variants, every variant known and sharing one interface, the mirror fit. Each experiment's
 * config in `read.configs` becomes its config as served (the variants' interface filled in), so
 * the pipelines checked after it see an experiment step as a load would.
 */
export function checkExperiments(read: ReadConfigs, elsewhere?: { config: (m: string) => ModelConfig | undefined; known: readonly string[] }): void {
  const { problems, configs, parsed: parsedByName } = read;
  const known = [...configs.keys(), ...(elsewhere?.known ?? [])];
  const usesOf = (m: string) => {
    const c = configs.get(m);
    return !c ? [] : isExperiment(c) ? experimentModels(c) : isEnsemble(c) ? pipelineStepModels(c) : [];
  };
  const done = new Set<string>();
  const fill = (name: string): void => {
    if (done.has(name)) return;
    done.add(name);
    const config = configs.get(name);
    const parsed = parsedByName.get(name);
    if (!config || !parsed || !isExperiment(config)) return;
    if (problems.some((p) => p.file === parsed.file && p.severity === 'error')) return;
    for (const used of experimentModels(config)) {
      const cycle = findDependencyCycle(name, used, usesOf);
      if (cycle) {
        const at = (from: string, to: string) => {
          const p = parsedByName.get(from);
          const pos = p && (isExperiment(p.config) ? positionOf(p, experimentModelPath(p.config, to)) : positionOf(p, `ensemble_scheduling.step[${(p.config.ensemble_scheduling?.step ?? []).findIndex((s) => s.model_name === to)}].model_name`));
          return pos ? `${pos.file}:${pos.line}:${pos.col}` : from;
        };
        const links = cycle.slice(1).map((to, i) => `${at(cycle[i]!, to)} uses '${to}'`);
        const message = Errors.dependencyCycle(name, cycle, links).message.replace(`failed to load '${name}': `, `model '${name}': `);
        problems.push({ ...positionOf(parsed, experimentModelPath(config, used)), path: experimentModelPath(config, used), message, severity: 'error' });
        return;
      }
      fill(used); // a variant that is itself an experiment is resolved first
    }
    const compiled = compileExperiment(config, (m) => configs.get(m) ?? elsewhere?.config(m), (path) => positionOf(parsed, path), known);
    problems.push(...compiled.problems);
    if (compiled.config) configs.set(name, compiled.config);
  };
  for (const name of [...configs.keys()]) fill(name);
}
