import { deepFreeze, formatLoadProblems, formatProblems, positionOf, validateConfig, type ModelConfig, type ParsedConfig } from '../config/index.js';
import { Errors } from '../errors.js';
import { compileExperiment, createExperimentScheduler, type MirrorOutcome } from '../experiment/index.js';
import { Model, type ExperimentMirrorRecord, type StatsCollector } from '../model/index.js';
import type { LoadEnv } from './model-loader.js';

/**
 * Load an experiment: its config checked alone, then against its variants and mirror (loaded
 * before it, as a pipeline's steps are), then a model whose scheduler routes to them. Its config
 * as served carries the variants' common interface.
 */
export function loadExperiment(parsed: ParsedConfig, config: ModelConfig, version: string, stats: StatsCollector, env: LoadEnv): Model {
  const name = config.name;
  const problems = validateConfig({ ...parsed, config }).filter((p) => p.severity === 'error');
  if (problems.length) throw Errors.modelLoadFailed(name, formatLoadProblems(problems));
  const compiled = compileExperiment(config, env.resolveConfig, (path) => positionOf(parsed, path), env.knownModels?.());
  if (!compiled.plan || !compiled.config) throw Errors.modelLoadFailed(name, `invalid experiment:\n${formatProblems(compiled.problems)}`);
  const plan = compiled.plan;
  // One record object per outcome, so recording a mirrored request allocates nothing.
  const records = new Map<MirrorOutcome, ExperimentMirrorRecord>((['sent', 'dropped', 'failed'] as const).map((outcome) => [outcome, Object.freeze({ experiment: name, outcome })]));
  return new Model({
    config: deepFreeze(compiled.config), version, clock: env.clock, stats,
    createScheduler: (hooks) => createExperimentScheduler(plan, {
      host: env.host, hooks,
      onRoute: (v) => { for (const l of env.listeners()) l.onExperimentRoute?.(v); },
      onMirror: (outcome) => { for (const l of env.listeners()) l.onExperimentMirror?.(records.get(outcome)!); },
      ...(env.routingHeaders ? { routingHeaders: env.routingHeaders } : {}),
    }),
  });
}
