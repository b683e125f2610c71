import type { ModelConfig } from './model-config.js';

/**
 * Every model an experiment routes to (its variants, then its mirror), once each: the loader loads
 * them first, and the dependency checks (cycles, unload_dependents) follow them, as a pipeline's steps.
 */
export function experimentModels(config: Pick<ModelConfig, 'experiment'>): string[] {
  const e = config.experiment;
  if (!e) return [];
  const names = new Set(e.variants.map((v) => v.model).filter((m) => m !== ''));
  if (e.mirror?.model) names.add(e.mirror.model);
  return [...names];
}

/** Where the experiment names `model` (a config path), for messages at file:line:col. */
export function experimentModelPath(config: Pick<ModelConfig, 'experiment'>, model: string): string {
  const i = config.experiment?.variants.findIndex((v) => v.model === model) ?? -1;
  if (i >= 0) return `experiment.variants[${i}].model`;
  return config.experiment?.mirror?.model === model ? 'experiment.mirror.model' : 'experiment';
}
