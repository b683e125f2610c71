import type { ModelConfig, ModelInput, ModelOutput } from '../config/index.js';
import { fromConfigType, toConfigType, type DataType } from '../tensor/index.js';
import type { TensorType } from './pipeline-context.js';

/** A tensor's type lookup in a scope; undefined = not known there (yet). */
export type TypeLookup = (name: string) => TensorType | undefined;

/** Type of a config tensor as a request sees it: a batching model's dims get the leading -1. */
export function configTensorType(model: ModelConfig, t: ModelInput | ModelOutput, useReshape = false): TensorType {
  const dims = useReshape && t.reshape ? t.reshape.shape : t.dims;
  return { datatype: fromConfigType(t.data_type) ?? t.data_type, full: model.max_batch_size > 0 ? [-1, ...dims] : [...dims] };
}

/**
 * A config tensor for a node that has no model (map, loop, return) or for a body scope: such
 * configs do not batch (max_batch_size 0), so their dims are the full dims.
 */
export function syntheticTensor(name: string, t: TensorType | undefined): ModelInput & ModelOutput {
  if (!t) return { name, data_type: 'TYPE_INVALID', dims: [] };
  return { name, data_type: toConfigType(t.datatype as DataType), dims: [...t.full] };
}

/** The config checks read of a node without a model: its tensors typed from what it binds. */
export function syntheticConfig(name: string, inputs: readonly (ModelInput & ModelOutput)[], outputs: readonly (ModelInput & ModelOutput)[],
  base: ModelConfig): ModelConfig {
  return {
    ...base, name, platform: 'ensemble', backend: '', max_batch_size: 0, input: [...inputs], output: [...outputs],
    ensemble_scheduling: { step: [] }, model_transaction_policy: { decoupled: false },
  };
}

export const showType = (t: TensorType): string => `${t.datatype} [${t.full.join(',')}]`;
