/**
 * lande's input features, reproduced exactly so the ONNX MLP sees what lande's own network sees:
 * normalise (hyphens to spaces, drop everything but letters, marks and whitespace, collapse
 * whitespace, lowercase, pad with one space each side), then the relative frequency of each listed
 * 1-, 2-, 3- and 4-gram among all n-grams of that length. Slicing is by UTF-16 code unit, as lande
 * does. Pure: runs in Node tests and inside the BLS sandbox.
 */

export interface NgramLists {
  unigrams: string[];
  bigrams: string[];
  trigrams: string[];
  quadgrams: string[];
}

export function normalizeText(text: string): string {
  const collapsed = text
    .replace(/-+/g, ' ')
    .replace(/[^\p{L}\p{M}\s]/gu, '')
    .replace(/\s{2,}/g, ' ')
    .toLowerCase()
    .trim();
  return ` ${collapsed} `;
}

/** Frequency of each n-gram of `length` code units in `text` (count / number of n-grams). */
export function ngramFrequencies(text: string, length: number): Map<string, number> {
  const counts = new Map<string, number>();
  const total = text.length - length + 1;
  for (let i = 0; i < total; i++) {
    const gram = text.slice(i, i + length);
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  for (const [gram, count] of counts) counts.set(gram, count / total);
  return counts;
}

export function featureCount(lists: NgramLists): number {
  return lists.unigrams.length + lists.bigrams.length + lists.trigrams.length + lists.quadgrams.length;
}

/** Writes the feature vector of `text` into `out` (length featureCount(lists)) at `offset`. */
export function featurize(text: string, lists: NgramLists, out: Float32Array, offset = 0): void {
  const norm = normalizeText(text);
  let o = offset;
  for (const [length, grams] of [[1, lists.unigrams], [2, lists.bigrams], [3, lists.trigrams], [4, lists.quadgrams]] as const) {
    const freq = ngramFrequencies(norm, length);
    for (const gram of grams) out[o++] = freq.get(gram) ?? 0;
  }
}
