import type { ModelConfig, NestedStep } from './model-config.js';

/**
 * Every model a pipeline calls, once each in order of first use, including the steps inside its
 * control flow (switch cases and default, map and loop bodies): the loader loads them all first,
 * and the dependency checks follow them all. A construct itself names no model.
 */
export function pipelineStepModels(config: ModelConfig): string[] {
  const names = new Set<string>();
  const walk = (steps: readonly NestedStep[] | undefined) => {
    for (const s of steps ?? []) {
      if (s.model_name) names.add(s.model_name);
      for (const c of s.switch?.cases ?? []) walk(c.steps);
      walk(s.switch?.default);
      walk(s.map?.steps);
      walk(s.loop?.steps);
    }
  };
  walk(config.ensemble_scheduling?.step);
  return [...names];
}
