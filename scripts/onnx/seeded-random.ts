/**
 * A small deterministic PRNG (mulberry32) so generated weights are identical on every machine and
 * a test can recompute them instead of storing them.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` floats uniform in [-scale, scale). */
export function seededFloats(seed: number, count: number, scale = 1): Float32Array {
  const next = seededRandom(seed);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (next() * 2 - 1) * scale;
  return out;
}
