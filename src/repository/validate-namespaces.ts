import type { BackendRegistry } from '../backend/index.js';
import type { ModelConfig } from '../config/index.js';
import { checkExperiments } from './check-experiments.js';
import { checkPipelines, readRepositoryConfigs, type RepositoryReport, type ValidateOptions } from './validate-repository.js';

/**
 * `validate --model-namespacing=true`, as a namespaced serve loads (model-namespaces.ts): each
 * repository is read on its own, so a name may be in several; a pipeline's step is its own
 * repository's model first, else the one other repository that has the name.
 */
export async function validateNamespaces(paths: readonly string[], registry: BackendRegistry, options: ValidateOptions): Promise<RepositoryReport> {
  const reads = [];
  for (const path of paths) reads.push(await readRepositoryConfigs([path], registry, { backendChecks: true, ...options }));
  for (const read of reads) {
    const others = reads.filter((r) => r !== read);
    const config = (m: string): ModelConfig | undefined => {
      const held = others.filter((r) => r.configs.has(m));
      return held.length === 1 ? held[0]!.configs.get(m) : undefined;
    };
    const elsewhere = { config, known: others.flatMap((r) => [...r.configs.keys()]) };
    checkExperiments(read, elsewhere);
    checkPipelines(read, elsewhere);
  }
  return { models: reads.reduce((n, r) => n + r.models, 0), problems: reads.flatMap((r) => r.problems) };
}
