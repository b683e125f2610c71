import { guessBackend } from './guess-backend.js';
import { readConfigFiles } from './config-files.js';
import { versionDirectory, versionPaths } from './model-paths.js';
import type { BackendInstance, BackendRegistry, LoadContext, ModelHost } from '../backend/index.js';
import {
  deepFreeze, formatProblems, isEnsemble, positionOf, validateConfig, type ModelConfig, type ParsedConfig,
} from '../config/index.js';
import { createEnsembleScheduler } from '../dataflow/index.js';
import { Errors, TributaryError } from '../errors.js';
import type { Logger } from '../logger.js';
import { Model, StatsCollector, runWarmup, type ModelListener } from '../model/index.js';
import { compilePipeline } from '../pipeline/index.js';
import { createScheduler, type Clock } from '../scheduler/index.js';

export interface LoadEnv {
  registry: BackendRegistry;
  host: ModelHost;
  clock: Clock;
  strict: boolean;
  listeners: () => Iterable<ModelListener>;
  /** Config of a loaded, ready model (version -1 = latest), for compiling pipelines. */
  resolveConfig: (model: string, version: number) => ModelConfig | undefined;
  log: Logger;
}

function fail(name: string, parsed: ParsedConfig, problems: ReturnType<typeof validateConfig>): never {
  throw Errors.modelLoadFailed(name, `invalid configuration:\n${formatProblems(problems)}`);
}

/** Load one version of a model: config checks, backend instances, scheduler, warmup. */
export async function loadModelVersion(parsed: ParsedConfig & { present: boolean }, modelDir: string, version: number, env: LoadEnv): Promise<Model> {
  let config = structuredClone(parsed.config) as ModelConfig;
  const name = config.name;
  const v = String(version);
  const stats = new StatsCollector(name, v, env.listeners);

  const parseProblems = parsed.problems.filter((p) => p.severity === 'error');
  if (parseProblems.length) fail(name, parsed, parseProblems);

  if (isEnsemble(config)) {
    if (!config.platform) config.platform = 'ensemble';
    const problems = validateConfig({ ...parsed, config }).filter((p) => p.severity === 'error');
    if (problems.length) fail(name, parsed, problems);
    const compiled = compilePipeline(config, env.resolveConfig, (path) => positionOf(parsed, path));
    const errors = compiled.problems.filter((p) => p.severity === 'error');
    for (const w of compiled.problems.filter((p) => p.severity === 'warning')) {
      env.log.warn(`${w.file ?? parsed.file}:${w.line ?? 1}:${w.col ?? 1}: warning: ${w.message}`);
    }
    if (errors.length || !compiled.plan) {
      throw Errors.modelLoadFailed(name, `invalid pipeline:\n${errors.map((p) => `${p.file ?? parsed.file}:${p.line ?? 1}:${p.col ?? 1}: error: ${p.message}`).join('\n')}`);
    }
    const frozen = deepFreeze(config);
    const plan = compiled.plan;
    let ensemble: ReturnType<typeof createEnsembleScheduler> | undefined;
    const model = new Model({
      config: frozen, version: v, clock: env.clock, stats,
      createScheduler: (hooks) => {
        ensemble = createEnsembleScheduler(plan, {
          host: env.host, pipeline: name, clock: env.clock, hooks,
          ...(frozen.ensemble_scheduling?.max_inflight_requests ? { maxInflight: frozen.ensemble_scheduling.max_inflight_requests } : {}),
        });
        return ensemble;
      },
      extraStats: () => (ensemble ? { step_stats: ensemble.stepStats(), wall: ensemble.wallStats() } : {}),
    });
    return model;
  }

  if (!config.backend && !config.platform) {
    const g = await guessBackend((await versionDirectory(name, modelDir, v)).versionDir);
    if (!g) throw Errors.modelLoadFailed(name, `no backend or platform in the config and no model.onnx / model.ts in version directory ${v}/`);
    config.backend = g.backend;
    config.platform = g.platform;
  }
  const factory = env.registry.resolve(name, config.backend, config.platform);
  if (!config.backend) config.backend = factory.name;
  const paths = await versionPaths(name, modelDir, v, config.default_model_filename, factory.defaultModelFilename);
  const ctx: LoadContext = { ...paths, version: v, host: env.host, log: env.log };
  if (!parsed.present && env.strict) {
    throw Errors.modelLoadFailed(name, `no config.pbtxt in the model directory, and --strict-model-config=true forbids auto-completing it`);
  }
  if (!env.strict && factory.autoComplete) config = await factory.autoComplete(config, ctx);
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
      for (let i = 0; i < Math.max(1, group.count); i++) instances.push(await backendModel.createInstance(index++, group));
    }
  } catch (e) {
    await Promise.allSettled(instances.map((i) => i.finalize()));
    await backendModel.finalize?.();
    throw e instanceof TributaryError ? e : Errors.modelLoadFailed(name, (e as Error).message);
  }
  let extra: (() => object) | undefined;
  const model = new Model({
    config, version: v, clock: env.clock, stats, instances, backendModel, labels,
    createScheduler: (hooks) => {
      const s = createScheduler(config, instances, { model: name, clock: env.clock, hooks, initialState });
      const seq = (s as { sequenceStats?: () => object }).sequenceStats;
      if (seq) extra = () => ({ sequence_stats: seq.call(s) });
      return s;
    },
    extraStats: () => (extra ? extra() : {}),
  });
  try {
    await runWarmup(model, config, (file) => files.warmup.get(file)!);
  } catch (e) {
    await model.unload();
    throw e;
  }
  return model;
}
