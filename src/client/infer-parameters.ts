import type { Parameters } from '../inference/index.js';
import type { InferOptions } from './types.js';

/**
 * The request parameters for the reserved fields (priority, timeout, sequence) merged over the
 * caller's own; the same names on both transports (Triton's protocol).
 */
export function inferParameters(options: InferOptions): Parameters | undefined {
  const { priority, timeoutUs, sequence } = options;
  if (priority === undefined && timeoutUs === undefined && sequence === undefined) return options.parameters;
  const out: Parameters = { ...options.parameters };
  if (priority !== undefined) out.priority = priority;
  if (timeoutUs !== undefined) out.timeout = timeoutUs;
  if (sequence !== undefined) {
    out.sequence_id = sequence.id;
    if (sequence.start) out.sequence_start = true;
    if (sequence.end) out.sequence_end = true;
  }
  return out;
}
