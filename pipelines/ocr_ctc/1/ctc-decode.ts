/**
 * Greedy CTC decoding of a recogniser's per-timestep class probabilities: take the best class per
 * step, merge repeats, drop blanks. PaddleOCR's class layout: 0 = blank, i = dictionary line i-1,
 * and one extra last class for the space character. The score is the mean probability of the
 * characters kept (0 when none).
 */

export interface Decoded { text: string; score: number }

/** The recogniser's characters by class index (index 0, the blank, is ''). */
export function ctcCharset(dictionary: string): string[] {
  const lines = dictionary.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return ['', ...lines, ' '];
}

export function ctcGreedyDecode(probs: Float32Array, offset: number, steps: number, classes: number, charset: string[]): Decoded {
  if (charset.length !== classes) {
    throw new Error(`CTC: the dictionary gives ${charset.length} classes but the model outputs ${classes}`);
  }
  // probs holds n * steps * classes values (the tensor's shape), so each row below is in range.
  let text = '';
  let sum = 0, kept = 0, prev = -1;
  for (let t = 0; t < steps; t++) {
    const row = offset + t * classes;
    let best = 0, bestP = probs[row]!;
    for (let c = 1; c < classes; c++) {
      const p = probs[row + c]!;
      if (p > bestP) { bestP = p; best = c; }
    }
    if (best !== 0 && best !== prev) { text += charset[best]; sum += bestP; kept++; }
    prev = best;
  }
  return { text, score: kept ? sum / kept : 0 };
}
