/** Softmax over one row of logits and the winning label (ties go to the lower index). */
export interface Labelled { label: string; score: number }

/** The row at `offset` holds labels.length logits: the model checks the width against the labels at load. */
export function softmaxLabel(logits: ArrayLike<number>, offset: number, labels: readonly string[]): Labelled {
  const n = labels.length;
  let best = 0;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = logits[offset + i]!;
    if (v > max) { max = v; best = i; }
  }
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(logits[offset + i]! - max);
  return { label: labels[best]!, score: 1 / sum };
}
