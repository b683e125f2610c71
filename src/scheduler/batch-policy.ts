import type { ModelConfig } from '../config/index.js';
import type { BatchPolicy } from './form-batch.js';

/**
 * The batch-cutting policy of a model. An unbatched model (max_batch_size 0) runs requests one
 * at a time. Preferred sizes above max_batch_size can never form and are ignored.
 */
export function batchPolicyOf(
  config: Pick<ModelConfig, 'max_batch_size'>,
  batching: { preferred_batch_size?: readonly number[]; max_queue_delay_microseconds?: number } | undefined,
): BatchPolicy {
  const maxBatch = config.max_batch_size;
  if (!batching || maxBatch <= 0) return { capRows: Math.max(1, maxBatch), preferred: new Set(), delayMs: 0, maxItems: 1 };
  const preferred = new Set((batching.preferred_batch_size ?? []).filter((n) => n >= 1 && n <= maxBatch));
  return {
    capRows: preferred.size ? Math.max(...preferred) : maxBatch,
    preferred,
    delayMs: (batching.max_queue_delay_microseconds ?? 0) / 1000,
    maxItems: Infinity,
  };
}
