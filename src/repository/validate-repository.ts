import { guessBackend } from './guess-backend.js';
import { configFileRefs, confineConfigFile } from './config-files.js';
import { versionDirectory, versionPaths } from './model-paths.js';
import type { BackendRegistry, LoadContext } from '../backend/index.js';
import { isEnsemble, positionOf, validateConfig, type ConfigProblem, type ModelConfig, type ParsedConfig } from '../config/index.js';
import { Errors, toTributaryError } from '../errors.js';
import { createLogger } from '../logger.js';
import { compilePipeline } from '../pipeline/index.js';
import { findModels, listVersions } from './find-models.js';
import { readModelConfig } from './read-model-config.js';

export interface RepositoryReport {
  models: number;
  problems: ConfigProblem[];
}

/**
 * Check a whole repository without serving it: every config parses and validates, model files
 * agree with configs (auto-complete runs as at load), and every pipeline compiles. Collects every
 * problem with file:line:col; never stops at the first.
 */
export async function validateRepository(paths: readonly string[], registry: BackendRegistry, options: { strict?: boolean } = {}): Promise<RepositoryReport> {
  const { models, problems, configs, parsed: parsedByName } = await readRepositoryConfigs(paths, registry, options);
  for (const [name, config] of configs) {
    if (!isEnsemble(config)) continue;
    const parsed = parsedByName.get(name)!;
    const compiled = compilePipeline(config, (m) => configs.get(m), (path) => positionOf(parsed, path));
    for (const p of compiled.problems) {
      problems.push({ file: p.file ?? parsed.file, line: p.line ?? 1, col: p.col ?? 1, path: p.path, message: p.message, severity: p.severity });
    }
  }
  return { models, problems };
}

export interface RepositoryConfigs extends RepositoryReport {
  /** Every model's config as loading would see it (auto-completed from model files unless strict). */
  configs: Map<string, ModelConfig>;
  parsed: Map<string, ParsedConfig>;
}

/**
 * Read every model's config the way a load would (auto-complete included), without loading
 * anything; `tributary graph` uses it too, so a pipeline over config-less steps compiles.
 */
export async function readRepositoryConfigs(paths: readonly string[], registry: BackendRegistry, options: { strict?: boolean } = {}): Promise<RepositoryConfigs> {
  const problems: ConfigProblem[] = [];
  const found = await findModels(paths);
  const parsedByName = new Map<string, ParsedConfig>();
  const configs = new Map<string, ModelConfig>();
  const log = createLogger('validate');
  const host = { infer: () => { throw Errors.validateNoInfer(); } };
  for (const [name, dir] of found) {
    let parsed: ParsedConfig & { present: boolean };
    try {
      parsed = await readModelConfig(dir);
    } catch (e) {
      problems.push({ file: dir, line: 1, col: 1, path: '', message: toTributaryError(e).message, severity: 'error' });
      continue;
    }
    parsedByName.set(name, parsed);
    let config = parsed.config;
    // A config that does not parse cleanly is not compared with its model file: the comparison
    // would only repeat the parse error (e.g. an unknown enum read as TYPE_INVALID).
    const parsedCleanly = !parsed.problems.some((p) => p.severity === 'error');
    if (!isEnsemble(config) && parsedCleanly) {
      try {
        const versions = await listVersions(dir);
        const v = String(versions[versions.length - 1] ?? 1);
        const backend = config.backend || config.platform || (await guessBackend((await versionDirectory(name, dir, v)).versionDir))?.backend;
        if (!backend) throw Errors.modelLoadFailed(name, `no backend or platform in the config and no model file in version directory ${v}/`);
        const factory = registry.resolve(name, config.backend || backend, config.platform);
        // Auto-complete opens the model file, so it is confined exactly as a load confines it.
        const paths = await versionPaths(name, dir, v, config.default_model_filename, factory.defaultModelFilename);
        const ctx: LoadContext = { ...paths, version: v, host, log };
        if (!options.strict && factory.autoComplete) config = await factory.autoComplete(structuredClone(config), ctx);
      } catch (e) {
        problems.push(...placeModelProblems(name, toTributaryError(e).message, parsed));
      }
    }
    // validateConfig returns the parse problems first, then the semantic ones.
    problems.push(...validateConfig({ ...parsed, config }));
    problems.push(...(await fileNameProblems(name, dir, config, parsed)));
    configs.set(name, config);
  }
  return { models: found.size, problems, configs, parsed: parsedByName };
}

/** Files the config names that a load would refuse (they leave their directory); nothing is read. */
async function fileNameProblems(name: string, dir: string, config: ModelConfig, parsed: ParsedConfig): Promise<ConfigProblem[]> {
  const out: ConfigProblem[] = [];
  for (const ref of configFileRefs(config)) {
    try {
      await confineConfigFile(name, dir, ref);
    } catch (e) {
      const message = toTributaryError(e).message.replace(`failed to load '${name}': `, `model '${name}': `);
      out.push({ ...positionOf(parsed, ref.path), path: ref.path, message, severity: 'error' });
    }
  }
  return out;
}

/**
 * Backends report config/model disagreements as one message ("input 'X': config data_type ...;
 * output 'Y': ..."); split it and place each part at the config entry it names, so the user gets
 * file:line:col of the tensor rather than of the file.
 */
function placeModelProblems(name: string, message: string, parsed: ParsedConfig): ConfigProblem[] {
  const prefix = `failed to load '${name}': `;
  const body = message.startsWith(prefix) ? message.slice(prefix.length) : message;
  return body.split('; ').map((part) => {
    const m = /^(?:config |model )?(input|output) '([^']+)'(?::? ?config (data_type|dims|reshape))?/.exec(part);
    let path = '';
    if (m) {
      const kind = m[1] as 'input' | 'output';
      const i = parsed.config[kind].findIndex((io) => io.name === m[2]);
      if (i >= 0) path = `${kind}[${i}]${m[3] ? `.${m[3]}` : ''}`;
    }
    const at = positionOf(parsed, path);
    return { ...at, path, message: `model '${name}': ${part}`, severity: 'error' as const };
  });
}
