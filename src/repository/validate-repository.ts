import { join } from 'node:path';
import { guessBackend } from './guess-backend.js';
import { configFileRefs, confineConfigFile } from './config-files.js';
import { versionDirectory, versionPaths } from './model-paths.js';
import { checkRuntime, type BackendFactory, type BackendRegistry, type BackendSettings, type LoadContext } from '../backend/index.js';
import { isEnsemble, isExperiment, pipelineStepModels, positionOf, validateConfig, type ConfigProblem, type ModelConfig, type ParsedConfig } from '../config/index.js';
import { Errors, toTributaryError } from '../errors.js';
import { createLogger } from '../logger.js';
import { compilePipeline } from '../pipeline/index.js';
import { checkExperiments } from './check-experiments.js';
import { findDependencyCycle } from './find-dependency-cycle.js';
import { findModels, listVersions } from './find-models.js';
import { readModelConfig } from './read-model-config.js';
import { unknownStepHints } from './unknown-step-hints.js';
import { validateNamespaces } from './validate-namespaces.js';

export interface ValidateOptions {
  /** --strict-model-config=true / --disable-auto-complete-config: no auto-complete. */
  strict?: boolean;
  /** --model-config-name: prefer `configs/<name>.pbtxt`, as a load does. */
  configName?: string;
  /**
   * Also run each backend's load-time checks that need no running instance (BackendFactory.check:
   * a script's bundle and type check, an ONNX file's inputs and outputs), as a load would.
   */
  backendChecks?: boolean;
  /** --backend-config, per backend, as a load sees it. */
  backendSettings?: BackendSettings;
  /** --model-namespacing: each repository is checked as a namespace; a name may be in several. */
  namespacing?: boolean;
  /**
   * Repositories the searched ones do not include but a user may have meant (the built-in
   * pipelines): an unknown step model found there is named with the flag that adds it.
   */
  nearby?: readonly string[];
}

export interface RepositoryReport {
  models: number;
  problems: ConfigProblem[];
}

/**
 * Check a whole repository without serving it: every config parses and validates, model files
 * agree with configs (auto-complete runs as at load), and every pipeline compiles. Collects every
 * problem with file:line:col; never stops at the first.
 */
export async function validateRepository(paths: readonly string[], registry: BackendRegistry, options: ValidateOptions = {}): Promise<RepositoryReport> {
  if (options.namespacing && paths.length > 1) return validateNamespaces(paths, registry, options);
  const read = await readRepositoryConfigs(paths, registry, { backendChecks: true, ...options });
  checkExperiments(read);
  checkPipelines(read, undefined, await unknownStepHints(read.configs, paths, options.nearby));
  return { models: read.models, problems: read.problems };
}

/**
 * Compile every pipeline of `read`, adding its problems to read.problems. A step `read` does not
 * have is looked up with `elsewhere` (--model-namespacing: the other repositories).
 */
export function checkPipelines(read: RepositoryConfigs, elsewhere?: { config: (m: string) => ModelConfig | undefined; known: readonly string[] }, hints?: ReadonlyMap<string, string>): void {
  const { problems, configs, parsed: parsedByName } = read;
  const known = [...configs.keys(), ...(elsewhere?.known ?? [])];
  const stepsOf = (m: string) => {
    const c = configs.get(m);
    return c && isEnsemble(c) ? pipelineStepModels(c) : [];
  };
  for (const [name, config] of configs) {
    if (!isEnsemble(config)) continue;
    const parsed = parsedByName.get(name)!;
    // As a load: a pipeline whose config is invalid, or that closes a loop of pipelines, is
    // refused before it is compiled.
    if (problems.some((p) => p.file === parsed.file && p.severity === 'error')) continue;
    const cycle = cycleProblem(name, stepsOf, parsedByName);
    if (cycle) {
      problems.push(cycle);
      continue;
    }
    const compiled = compilePipeline(config, (m) => configs.get(m) ?? elsewhere?.config(m), (path, offset) => positionOf(parsed, path, offset), known);
    for (const p of compiled.problems) {
      const hint = p.unknownModel === undefined ? '' : hints?.get(p.unknownModel) ?? '';
      problems.push({ file: p.file ?? parsed.file, line: p.line ?? 1, col: p.col ?? 1, path: p.path, message: p.message + hint, severity: p.severity });
    }
  }
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
export async function readRepositoryConfigs(paths: readonly string[], registry: BackendRegistry, options: ValidateOptions = {}): Promise<RepositoryConfigs> {
  const problems: ConfigProblem[] = [];
  const found = await findModels(paths);
  const parsedByName = new Map<string, ParsedConfig>();
  const configs = new Map<string, ModelConfig>();
  const log = createLogger('validate');
  const host = { infer: () => { throw Errors.validateNoInfer(); } };
  for (const [name, dir] of found) {
    let parsed: ParsedConfig & { present: boolean };
    const firstOwn = problems.length;
    try {
      parsed = await readModelConfig(dir, undefined, options.configName ? { configName: options.configName } : {});
    } catch (e) {
      problems.push({ file: dir, line: 1, col: 1, path: '', message: toTributaryError(e).message, severity: 'error' });
      continue;
    }
    parsedByName.set(name, parsed);
    let config = parsed.config;
    if (options.strict && !parsed.present) {
      // The same refusal a load gives (model-loader.ts), so validate and serve agree.
      problems.push({ file: parsed.file, line: 1, col: 1, path: '', severity: 'error',
        message: `model '${name}': no config.pbtxt in the model directory, and --strict-model-config=true forbids auto-completing it` });
    }
    // A config that does not parse cleanly is not compared with its model file: the comparison
    // would only repeat the parse error (e.g. an unknown enum read as TYPE_INVALID).
    const parsedCleanly = !parsed.problems.some((p) => p.severity === 'error');
    let checked: { factory: BackendFactory; ctx: LoadContext } | undefined;
    if (!isEnsemble(config) && !isExperiment(config) && parsedCleanly) {
      try {
        const versions = await listVersions(dir);
        const v = String(versions[versions.length - 1] ?? 1);
        const backend = config.backend || config.platform || (await guessBackend(name, config.default_model_filename, (await versionDirectory(name, dir, v)).versionDir))?.backend;
        if (!backend) throw Errors.modelLoadFailed(name, `no backend or platform in the config, and default_model_filename '${config.default_model_filename}' names no known kind of model file; set backend`);
        const factory = registry.resolve(name, config.backend || backend, config.platform);
        await checkRuntime(name, config.runtime, factory);
        // Auto-complete opens the model file, so it is confined exactly as a load confines it.
        const paths = await versionPaths(name, dir, v, config.default_model_filename, factory.defaultModelFilename);
        const settings = options.backendSettings?.[factory.name];
        const ctx: LoadContext = { ...paths, version: v, host, log, ...(settings ? { settings } : {}) };
        if (!options.strict && factory.autoComplete) config = await factory.autoComplete(structuredClone(config), ctx);
        checked = { factory, ctx };
      } catch (e) {
        const err = toTributaryError(e);
        // An unknown backend is placed at the field that names it.
        const at = Errors.backendUnknown.is(err) ? (config.backend ? 'backend' : config.platform ? 'platform' : '') : '';
        problems.push(...placeModelProblems(name, err.message, parsed, at));
      }
    }
    // validateConfig returns the parse problems first, then the semantic ones.
    problems.push(...validateConfig({ ...parsed, config }), ...(await fileNameProblems(name, dir, config, parsed)));
    // The backend's checks run on a config a load would accept, as they do at load.
    if (options.backendChecks && checked?.factory.check && !problems.slice(firstOwn).some((p) => p.severity === 'error')) {
      problems.push(...(await backendCheckProblems(name, dir, config, parsed, checked.factory, checked.ctx)));
    }
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

const TENSOR_PART = /^(?:config |model )?(input|output) '([^']+)'(?::? ?config (data_type|dims|reshape))?/;

/**
 * A load error's text without the model prefix it already carries (`failed to load 'm': ` from a
 * load, `model 'm': ` from a backend), since the report puts `model 'm': ` before every message.
 */
function ownMessage(name: string, message: string): string {
  for (const prefix of [`failed to load '${name}': `, `model '${name}': `]) if (message.startsWith(prefix)) return message.slice(prefix.length);
  return message;
}

/**
 * Backends report config/model disagreements as one message ("input 'X': config data_type ...;
 * output 'Y': ..."); split it and place each part at the config entry it names, so the user gets
 * file:line:col of the tensor rather than of the file.
 */
function placeModelProblems(name: string, message: string, parsed: ParsedConfig, at = ''): ConfigProblem[] {
  // Only the parts that name a tensor are split off: the rest of a message ("; this server runs
  // ...", "; remove it") belongs to the part before it.
  const parts: string[] = [];
  for (const part of ownMessage(name, message).split('; ')) {
    if (parts.length && !TENSOR_PART.test(part)) parts[parts.length - 1] += `; ${part}`;
    else parts.push(part);
  }
  return parts.map((part) => {
    const m = TENSOR_PART.exec(part);
    let path = at;
    if (m) {
      const kind = m[1] as 'input' | 'output';
      const i = parsed.config[kind].findIndex((io) => io.name === m[2]);
      if (i >= 0) path = `${kind}[${i}]${m[3] ? `.${m[3]}` : ''}`;
    }
    return { ...positionOf(parsed, path), path, message: `model '${name}': ${part}`, severity: 'error' as const };
  });
}

/**
 * The backend's own load-time checks (BackendFactory.check). Their warnings (a script's type
 * errors under type_check "warn") become warnings of the report rather than log lines. A message
 * that carries its own file:line:col (a script's) is placed there, in the model directory.
 */
async function backendCheckProblems(name: string, dir: string, config: ModelConfig, parsed: ParsedConfig, factory: BackendFactory, ctx: LoadContext): Promise<ConfigProblem[]> {
  const out: ConfigProblem[] = [];
  const warn = (message: string) => out.push({ file: ctx.modelFile, line: 1, col: 1, path: '', message, severity: 'warning' });
  try {
    await factory.check!(structuredClone(config), { ...ctx, log: { ...ctx.log, warn } });
  } catch (e) {
    const message = toTributaryError(e).message;
    const at = /(?:^|\n\s*)([^\s:'"]+):(\d+):(\d+): /.exec(message);
    if (!at) return [...out, ...placeModelProblems(name, message, parsed)];
    out.push({ file: join(dir, at[1]!), line: Number(at[2]), col: Number(at[3]), path: '', message: `model '${name}': ${ownMessage(name, message)}`, severity: 'error' });
  }
  return out;
}

/**
 * The loop of pipelines `name` would close, reported as a load reports it (Errors.dependencyCycle,
 * each link at the step that names the next model), at this pipeline's step.
 */
function cycleProblem(name: string, stepsOf: (m: string) => string[], parsed: ReadonlyMap<string, ParsedConfig>): ConfigProblem | undefined {
  const stepAt = (from: string, to: string) => {
    const p = parsed.get(from);
    const i = (p?.config.ensemble_scheduling?.step ?? []).findIndex((s) => s.model_name === to);
    return p ? positionOf(p, `ensemble_scheduling.step[${i}].model_name`) : undefined;
  };
  for (const step of new Set(stepsOf(name))) {
    if (step === name) continue; // the compile reports a pipeline that calls itself
    const cycle = findDependencyCycle(name, step, stepsOf);
    if (!cycle) continue;
    const links = cycle.slice(1).map((to, i) => {
      const at = stepAt(cycle[i]!, to);
      return `${at ? `${at.file}:${at.line}:${at.col}` : cycle[i]} uses '${to}'`;
    });
    const at = stepAt(name, step)!;
    const message = Errors.dependencyCycle(name, cycle, links).message.replace(`failed to load '${name}': `, `model '${name}': `);
    return { ...at, path: `ensemble_scheduling.step`, message, severity: 'error' };
  }
  return undefined;
}
