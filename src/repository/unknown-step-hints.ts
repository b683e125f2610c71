import { readdir } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { isEnsemble, pipelineStepModels, type ModelConfig } from '../config/index.js';
import { readModelConfig } from './read-model-config.js';

/**
 * Directories looked at beside each searched repository (its parent's subdirectories): enough for
 * a project's few repositories, and a bound on the stat calls a mistyped step name costs.
 */
export const MAX_SIBLING_REPOSITORIES = 64;

/** A path as the user would type it: relative to the working directory when under it. */
export function shownPath(p: string): string {
  const r = relative(process.cwd(), resolve(p));
  return r && !r.startsWith('..') && !r.startsWith('/') ? r : resolve(p);
}

/**
 * For `validate` and `graph`: what to add to the error of each step whose model the searched
 * repositories lack. It names the repositories searched and, when a repository nearby holds the
 * model (`nearby`, e.g. the built-in pipelines, or a sibling directory of a searched repository),
 * the --model-repository flag that adds it; a newcomer's pipeline over the built-in models fails
 * this way first.
 */
export async function unknownStepHints(configs: ReadonlyMap<string, ModelConfig>, searched: readonly string[], nearby: readonly string[] = []): Promise<Map<string, string>> {
  const missing = new Set<string>();
  for (const c of configs.values()) if (isEnsemble(c)) for (const m of pipelineStepModels(c)) if (!configs.has(m)) missing.add(m);
  const hints = new Map<string, string>();
  if (missing.size === 0) return hints;
  const candidates = await candidateRepositories(searched, nearby);
  const names = searched.map(shownPath).join(', ');
  for (const model of missing) {
    let holder: string | undefined;
    for (const dir of candidates) if (await isModelDir(join(dir, model))) { holder = shownPath(dir); break; }
    hints.set(model, `; repositories searched: ${names}; ${holder
      ? `the repository '${holder}' has it: add --model-repository ${holder}`
      : 'add the repository that holds it with another --model-repository'}`);
  }
  return hints;
}

/**
 * unknownStepHints for the one pipeline in `modelDir` (`run-model`, after its load failed), read as
 * a load reads it; each of its steps gets a hint, the caller applies those its failure names.
 */
export async function modelStepHints(modelDir: string, searched: readonly string[], nearby: readonly string[] = []): Promise<Map<string, string>> {
  const read = await readModelConfig(modelDir).catch(() => undefined);
  return read ? unknownStepHints(new Map([[read.config.name || 'pipeline', read.config]]), searched, nearby) : new Map();
}

async function candidateRepositories(searched: readonly string[], nearby: readonly string[]): Promise<string[]> {
  const skip = new Set(searched.map((s) => resolve(s)));
  const out: string[] = [];
  const add = (d: string) => {
    const r = resolve(d);
    if (!skip.has(r)) { skip.add(r); out.push(r); }
  };
  for (const d of nearby) add(d);
  for (const parent of new Set(searched.map((s) => dirname(resolve(s))))) {
    const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
    for (const e of entries.filter((x) => x.isDirectory() && !x.name.startsWith('.')).slice(0, MAX_SIBLING_REPOSITORIES)) add(join(parent, e.name));
  }
  return out;
}

/** A model directory: a config file or a numeric version folder in it. */
async function isModelDir(dir: string): Promise<boolean> {
  const entries = await readdir(dir).catch(() => undefined);
  return entries !== undefined && entries.some((n) => /^config\.(pbtxt|ya?ml|json)$/.test(n) || /^\d+$/.test(n));
}
