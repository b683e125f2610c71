import { guessBackend } from './guess-backend.js';
import { readConfigFiles } from './config-files.js';
import { asLoadFailure, versionDirectory, versionPaths } from './model-paths.js';
import { checkRuntime, type BackendInstance, type BackendRegistry, type BackendSettings, type LoadContext, type ModelHost } from '../backend/index.js';
import type { ResponseCache } from '../cache/index.js';
import {
  deepFreeze, formatLoadProblems, isEnsemble, isExperiment, positionOf, validateConfig, withInstanceCounts, type ModelConfig, type ParsedConfig,
} from '../config/index.js';
import type { RoutingHeaders } from '../experiment/index.js';
import { loadExperiment } from './load-experiment.js';
import { createEnsembleScheduler } from '../dataflow/index.js';
import { Errors, TributaryError } from '../errors.js';
import type { Logger } from '../logger.js';
import { Model, StatsCollector, runWarmup, type ModelListener } from '../model/index.js';
import { compilePipeline, inheritLabels, type ResolveLabels } from '../pipeline/index.js';
import { createScheduler, type Clock, type RateLimiter } from '../scheduler/index.js';

export interface LoadEnv {
  registry: BackendRegistry;
  host: ModelHost;
  clock: Clock;
  strict: boolean;
  /** --backend-config, per backend. */
  backendSettings?: BackendSettings;
  listeners: () => Iterable<ModelListener>;
  /** Config of a loaded, ready model (version -1 = latest), for compiling pipelines. */
  resolveConfig: (model: string, version: number) => ModelConfig | undefined;
  /** Labels of a loaded, ready model's outputs, for a pipeline to inherit (classification). */
  resolveLabels: ResolveLabels;
  /** The server's response cache (--cache-config); absent = models' response_cache is ignored. */
  cache?: ResponseCache;
  /** The model names of the repositories, for a "did you mean" on a pipeline's unknown step. */
  knownModels?: () => readonly string[];
  /** The server's rate limiter (--rate-limit=execution_count); absent = off. */
  rateLimiter?: RateLimiter;
  /** Where loaded experiments ask the edge for their sticky headers. */
  routingHeaders?: RoutingHeaders;
  log: Logger;
}

/** Triton's message of each problem first (a client matches on it), then where it is. */
function fail(name: string, parsed: ParsedConfig, problems: ReturnType<typeof validateConfig>): never {
  throw Errors.modelLoadFailed(name, formatLoadProblems(problems));
}

/** Load one version of a model: config checks, backend instances, scheduler, warmup. */
export async function loadModelVersion(parsed: ParsedConfig & { present: boolean }, modelDir: string, version: number, env: LoadEnv): Promise<Model> {
  let config = structuredClone(parsed.config) as ModelConfig;
  const name = config.name;
  const v = String(version);
  const stats = new StatsCollector(name, v, env.listeners);
  // As tritonserver: a model may ask for the cache, but only the server's --cache-config creates one.
  if (config.response_cache?.enable && !env.cache) {
    env.log.warn(`model '${name}' enables response_cache, but the server has no cache: its responses are not cached (start it with --cache-config local,size=<bytes>)`);
  }
  const cache = env.cache && config.response_cache?.enable ? { cache: env.cache } : {};

  const parseProblems = parsed.problems.filter((p) => p.severity === 'error');
  if (parseProblems.length) fail(name, parsed, parseProblems);

  if (isExperiment(config)) return loadExperiment(parsed, config, v, stats, env);

  if (isEnsemble(config)) {
    if (!config.platform) config.platform = 'ensemble';
    const problems = validateConfig({ ...parsed, config }).filter((p) => p.severity === 'error');
    if (problems.length) fail(name, parsed, problems);
    const compiled = compilePipeline(config, env.resolveConfig, (path, offset) => positionOf(parsed, path, offset), env.knownModels?.(), env.resolveLabels);
    const errors = compiled.problems.filter((p) => p.severity === 'error');
    for (const w of compiled.problems.filter((p) => p.severity === 'warning')) {
      env.log.warn(`${w.file ?? parsed.file}:${w.line ?? 1}:${w.col ?? 1}: warning: ${w.message}`);
    }
    if (errors.length || !compiled.plan) {
      // As a config's problems: each message first (Triton's words where it checks the same), then where.
      throw Errors.modelLoadFailed(name, errors.map((p) => `${p.message}; ${p.file ?? parsed.file}:${p.line ?? 1}:${p.col ?? 1}`).join('\n'));
    }
    const frozen = deepFreeze(config);
    const plan = compiled.plan;
    const labels = inheritLabels(plan, (await readConfigFiles(name, modelDir, frozen)).labels, env.resolveLabels);
    let ensemble: ReturnType<typeof createEnsembleScheduler> | undefined;
    const model = new Model({
      config: frozen, version: v, clock: env.clock, stats, labels, ...cache,
      createScheduler: (hooks) => {
        ensemble = createEnsembleScheduler(plan, {
          host: env.host, pipeline: name, clock: env.clock, hooks, batching: frozen.max_batch_size > 0,
          ...(frozen.ensemble_scheduling?.max_inflight_requests ? { maxInflight: frozen.ensemble_scheduling.max_inflight_requests } : {}),
        });
        return ensemble;
      },
      extraStats: () => {
        if (!ensemble) return {};
        const branches = ensemble.branchStats();
        return { step_stats: ensemble.stepStats(), ...(branches.length ? { branch_stats: branches } : {}), wall: ensemble.wallStats() };
      },
    });
    return model;
  }

  if (!config.backend && !config.platform) {
    const g = await guessBackend(name, config.default_model_filename, (await versionDirectory(name, modelDir, v)).versionDir);
    if (!g) throw Errors.modelLoadFailed(name, `no backend or platform in the config, and default_model_filename '${config.default_model_filename}' names no known kind of model file; set backend`);
    config.backend = g.backend;
    config.platform = g.platform;
    if (g.defaultModelFilename) config.default_model_filename = g.defaultModelFilename;
  }
  const factory = env.registry.resolve(name, config.backend, config.platform);
  if (!config.backend) config.backend = factory.name;
  await checkRuntime(name, config.runtime, factory).catch((e: unknown) => { throw asLoadFailure(name, e); });
  const paths = await versionPaths(name, modelDir, v, config.default_model_filename, factory.defaultModelFilename);
  const settings = env.backendSettings?.[factory.name];
  const ctx: LoadContext = { ...paths, version: v, host: env.host, log: env.log, ...(settings ? { settings } : {}) };
  if (!parsed.present && env.strict) {
    throw Errors.modelLoadFailed(name, `no config.pbtxt in the model directory, and --strict-model-config=true forbids auto-completing it`);
  }
  if (!env.strict && factory.autoComplete) config = await factory.autoComplete(config, ctx);
  config = withInstanceCounts(config);
  const problems = validateConfig({ ...parsed, config }).filter((p) => p.severity === 'error');
  if (problems.length) fail(name, parsed, problems);
  config = deepFreeze(config);

  const files = await readConfigFiles(name, ctx.modelDir, config);
  const { labels, initialState } = files;

  const backendModel = await factory.load(config, ctx);
  const instances: BackendInstance[] = [];
  try {
    let index = 0;
    for (const group of config.instance_group) {
      for (let i = 0; i < Math.max(1, group.count ?? 1); i++) instances.push(await backendModel.createInstance(index++, group));
    }
  } catch (e) {
    await Promise.allSettled(instances.map((i) => i.finalize()));
    await backendModel.finalize?.();
    throw e instanceof TributaryError ? e : Errors.modelLoadFailed(name, (e as Error).message);
  }
  let extra: (() => object) | undefined;
  let model: Model;
  try {
    model = new Model({
      config, version: v, clock: env.clock, stats, instances, backendModel, labels, ...cache,
      createScheduler: (hooks) => {
        const s = createScheduler(config, instances, { model: name, clock: env.clock, hooks, initialState, rateLimiter: env.rateLimiter });
        const seq = (s as { sequenceStats?: () => object }).sequenceStats;
        if (seq) extra = () => ({ sequence_stats: seq.call(s) });
        return s;
      },
      extraStats: () => (extra ? extra() : {}),
    });
  } catch (e) {
    // The scheduler refused the config (rate-limiter resources, adaptive delay): free the instances.
    await Promise.allSettled(instances.map((i) => i.finalize()));
    await backendModel.finalize?.();
    throw e;
  }
  try {
    await runWarmup(model, config, (file) => files.warmup.get(file)!);
  } catch (e) {
    await model.unload();
    throw e;
  }
  return model;
}
