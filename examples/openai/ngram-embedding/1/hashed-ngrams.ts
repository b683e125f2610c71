/**
 * The feature-hashing trick: every lower-cased word and every character trigram of ` word ` is
 * hashed (FNV-1a, 32 bits) to one of `size` slots, with a sign from another bit of the hash so
 * that collisions cancel on average rather than pile up, and the vector is scaled to unit length.
 * Texts that share words and word pieces point the same way; nothing is learned.
 */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function hashedNgrams(text: string, size: number): Float32Array {
  const v = new Float32Array(size);
  const add = (feature: string, weight: number) => {
    const h = fnv1a(feature);
    v[h % size]! += (h & 0x80000000 ? -1 : 1) * weight;
  };
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    add(`w:${word}`, 1);
    const padded = ` ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, 0.5);
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < size; i++) v[i] = v[i]! / norm;
  return v;
}
