import type { ModelConfig } from './model-config.js';

/**
 * Triton's core gives a CPU group of the backends that opted in two instances, every other group
 * one (SetDefaultInstanceCount: onnxruntime and tensorflow run well with several CPU sessions,
 * others carry a high per-instance overhead).
 */
const DEFAULT_CPU_INSTANCE_COUNT = 2;
const MULTI_INSTANCE_CPU_BACKENDS: ReadonlySet<string> = new Set(['onnxruntime', 'tensorflow']);

/** The instance count Triton gives a group of kind `kind` whose config sets none. */
function defaultInstanceCount(backend: string, kind: string): number {
  return kind === 'KIND_CPU' && MULTI_INSTANCE_CPU_BACKENDS.has(backend) ? DEFAULT_CPU_INSTANCE_COUNT : 1;
}

/**
 * `config` with every instance group's count set: the config's own, else the default for its
 * backend, as Triton settles it once the backend is known (after auto-complete). The input is
 * never mutated.
 */
export function withInstanceCounts(config: ModelConfig): ModelConfig {
  if (config.instance_group.every((g) => g.count !== undefined)) return config;
  return {
    ...config,
    instance_group: config.instance_group.map((g) => (g.count !== undefined ? g : { ...g, count: defaultInstanceCount(config.backend, g.kind) })),
  };
}
