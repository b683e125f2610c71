import type { ModelConfig } from '../config/index.js';

/**
 * The model config as Triton's front ends print it. Triton prints the protobuf with its scalar
 * defaults but leaves out message fields nobody set, and only a decoupled model (or a backend
 * that says so) sets `model_transaction_policy`: `/v2/models/<m>/config` of a plain ONNX model
 * has no such key. Both transports start from this form, so they agree.
 */
export function modelConfigToJson(config: ModelConfig): Omit<ModelConfig, 'model_transaction_policy'> & { model_transaction_policy?: ModelConfig['model_transaction_policy'] } {
  if (config.model_transaction_policy?.decoupled) return config;
  const { model_transaction_policy: _unset, ...rest } = config;
  return rest;
}
