/**
 * Indices of the k largest scores, best first; ties keep the lower index first so results are
 * deterministic. k is clamped to [1, scores.length]. Pure: unit-tested in Node, bundled into the BLS.
 */
export function topK(scores: ArrayLike<number>, k: number): number[] {
  const n = scores.length;
  const take = Math.max(1, Math.min(Math.floor(k), n));
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => scores[b]! - scores[a]! || a - b);
  return order.slice(0, take);
}

/** Parses the optional `top_k` request parameter; returns an error message instead of throwing. */
export function parseTopK(value: unknown, fallback: number, max: number): number | string {
  if (value === undefined || value === null) return fallback;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > max) {
    return `parameter 'top_k' must be an integer from 1 to ${max}, got ${JSON.stringify(value)}`;
  }
  return n;
}
