import { isEnsemble, type ModelConfig } from '../config/index.js';

/**
 * The model config as Triton's front ends print it. Triton prints the protobuf with its scalar
 * defaults but leaves out message fields nobody set, and only a decoupled model (or a backend
 * that says so) sets `model_transaction_policy`: `/v2/models/<m>/config` of a plain ONNX model
 * has no such key. An ensemble always has it: Triton's ensemble validation sets its `decoupled`
 * from its steps (core ensemble_utils.cc), so even a plain ensemble carries an empty one. Both
 * transports start from this form, so they agree.
 */
export function modelConfigToJson(config: ModelConfig): Omit<ModelConfig, 'model_transaction_policy'> & { model_transaction_policy?: ModelConfig['model_transaction_policy'] } {
  const shown = withoutDefaultQueuePolicy(config);
  if (config.model_transaction_policy?.decoupled || isEnsemble(config)) return shown;
  const { model_transaction_policy: _unset, ...rest } = shown;
  return rest;
}

/**
 * The dynamic batcher's default queue policy is filled in when the config leaves it out; Triton
 * leaves it unset then, so one that holds only defaults is not shown (a set message is always
 * encoded, and Triton's auto-completed configs have none).
 */
function withoutDefaultQueuePolicy(config: ModelConfig): ModelConfig {
  const d = config.dynamic_batching;
  const p = d?.default_queue_policy;
  if (!d || !p) return config;
  if (p.timeout_action !== 'REJECT' || p.default_timeout_microseconds !== 0 || p.allow_timeout_override || p.max_queue_size !== 0) return config;
  const { default_queue_policy: _default, ...batching } = d;
  return { ...config, dynamic_batching: batching };
}
