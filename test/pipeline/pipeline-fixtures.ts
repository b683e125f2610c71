/** Small config builders for pipeline tests (not a test file itself). */
import type { ConfigDataType, ModelConfig } from '../../src/config/index.js';
import { normalizeConfig } from '../../src/config/index.js';

export type IO = Record<string, [ConfigDataType, number[]] | [ConfigDataType, number[], { optional: boolean }]>;

export function model(name: string, inputs: IO, outputs: IO, o: { mbs?: number; decoupled?: boolean } = {}): ModelConfig {
  return normalizeConfig({
    name,
    backend: 'identity',
    max_batch_size: o.mbs ?? 0,
    input: Object.entries(inputs).map(([n, [t, dims, opt]]) => ({ name: n, data_type: t, dims, ...(opt ?? {}) })),
    output: Object.entries(outputs).map(([n, [t, dims]]) => ({ name: n, data_type: t, dims })),
    model_transaction_policy: { decoupled: o.decoupled ?? false },
  } as Partial<ModelConfig>);
}

export interface StepSpec { model: string; version?: number; in: Record<string, string>; out: Record<string, string> }

export function pipeline(name: string, inputs: IO, outputs: IO, steps: StepSpec[], o: { mbs?: number; decoupled?: boolean; maxInflight?: number } = {}): ModelConfig {
  return normalizeConfig({
    name,
    platform: 'ensemble',
    max_batch_size: o.mbs ?? 0,
    input: Object.entries(inputs).map(([n, [t, dims, opt]]) => ({ name: n, data_type: t, dims, ...(opt ?? {}) })),
    output: Object.entries(outputs).map(([n, [t, dims]]) => ({ name: n, data_type: t, dims })),
    model_transaction_policy: { decoupled: o.decoupled ?? false },
    ensemble_scheduling: {
      step: steps.map((s) => ({ model_name: s.model, model_version: s.version ?? -1, input_map: s.in, output_map: s.out })),
      ...(o.maxInflight ? { max_inflight_requests: o.maxInflight } : {}),
    },
  } as Partial<ModelConfig>);
}

/** A resolver over a fixed set of configs (version ignored). */
export function resolver(...configs: ModelConfig[]): (m: string, v: number) => ModelConfig | undefined {
  const byName = new Map(configs.map((c) => [c.name, c]));
  return (m) => byName.get(m);
}

export const F4: [ConfigDataType, number[]] = ['TYPE_FP32', [4]];
