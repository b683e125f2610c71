import type { ModelConfig } from '../../config/index.js';
import { modelConfigToJson } from '../index.js';

/** The proto-shaped ModelConfig object (field names shared with the JSON form). */
export type ModelConfigMsg = Record<string, unknown>;

/**
 * The JSON ModelConfig as a `inference.ModelConfig` message object. The JSON form already uses
 * the proto field names, enum names and numbers for int64, so most fields pass through; this
 * settles what differs: the scheduling `oneof` carries exactly one choice (ensemble, then
 * sequence, then dynamic, as Triton's normaliser ranks them), the ensemble's in-flight bound
 * takes its proto name, and Tributary-only fields are left out.
 */
export function modelConfigToProto(config: ModelConfig): ModelConfigMsg {
  const {
    dynamic_batching, sequence_batching, ensemble_scheduling, model_operations, ...rest
  } = modelConfigToJson(config);
  // Starting from the JSON form keeps `model_transaction_policy` unset for a model that is not
  // decoupled: a set message field is always encoded, and Triton sends none.
  const msg: ModelConfigMsg = { ...rest };
  if (ensemble_scheduling) {
    msg.ensemble_scheduling = {
      step: ensemble_scheduling.step.map((s) => ({
        model_name: s.model_name,
        model_version: s.model_version,
        input_map: s.input_map,
        output_map: s.output_map,
        model_namespace: s.model_namespace ?? '',
      })),
      max_inflight_responses: ensemble_scheduling.max_inflight_requests ?? 0,
    };
  } else if (sequence_batching) {
    const { direct, oldest, ...seq } = sequence_batching;
    msg.sequence_batching = oldest ? { ...seq, oldest } : direct ? { ...seq, direct } : seq;
  } else if (dynamic_batching) {
    msg.dynamic_batching = dynamic_batching;
  }
  const ops = model_operations?.op_library_filename;
  if (Array.isArray(ops)) msg.model_operations = { op_library_filename: ops.map(String) };
  return msg;
}
