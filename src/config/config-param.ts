/** Reading a parsed ModelConfig: `parameters` entries as typed values, and what kind of model it is. */
import type { ModelConfig } from './model-config.js';

/** Read a `parameters` entry as a string, number or boolean, with a default. */
export function configParam(config: Pick<ModelConfig, 'parameters'>, key: string): string | undefined {
  return config.parameters[key]?.string_value;
}

export function configParamInt(config: Pick<ModelConfig, 'parameters'>, key: string, fallback: number): number {
  const v = configParam(config, key);
  if (v === undefined || v.trim() === '') return fallback;
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

/** Is this an ensemble (pipeline) model? */
export function isEnsemble(config: Pick<ModelConfig, 'platform' | 'ensemble_scheduling'>): boolean {
  return config.platform === 'ensemble' || config.ensemble_scheduling !== undefined;
}

/** Is this an experiment (a model that routes to its variants)? */
export function isExperiment(config: Pick<ModelConfig, 'experiment'>): boolean {
  return config.experiment !== undefined;
}
