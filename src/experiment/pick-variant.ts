import type { InferenceRequest } from '../inference/index.js';
import type { ExperimentPlan, PlanVariant } from './experiment-plan.js';

/**
 * A point in [0, 1) from a text, the same on every server and every run: FNV-1a over the UTF-16
 * code units, then murmur3's final mix, whose avalanche spreads short keys ("alice", "bob") over
 * the whole range (FNV-1a alone leaves their high bits close together).
 */
export function stablePoint(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

/**
 * The value a request is routed on, or undefined for a weighted random choice. A request of a
 * sequence goes by its correlation id whatever `sticky` says, so a sequence never changes variant
 * (its state lives in one variant's sequence batcher).
 */
export function routingKey(plan: ExperimentPlan, request: InferenceRequest): string | undefined {
  const seq = request.sequence;
  if (seq !== undefined && seq.id !== 0n && seq.id !== '') return typeof seq.id === 'string' ? `s:${seq.id}` : `n:${seq.id}`;
  const sticky = plan.sticky;
  if (sticky === undefined) return undefined;
  if ('header' in sticky) return request.routingHeaders?.[sticky.header];
  const v = request.parameters?.[sticky.parameter];
  return v === undefined ? undefined : String(v);
}

/** The variant that owns `point` (in [0, 1)) on the cumulative weights; a weight-0 variant owns none. */
export function pickVariant(plan: ExperimentPlan, point: number): PlanVariant {
  const target = point * plan.total;
  const vs = plan.variants;
  for (let i = 0; i < vs.length; i++) if (target < vs[i]!.upTo) return vs[i]!;
  // Only rounding of the sums reaches here: the last variant that has a weight.
  for (let i = vs.length - 1; i > 0; i--) if (vs[i]!.weight > 0) return vs[i]!;
  return vs[0]!;
}
