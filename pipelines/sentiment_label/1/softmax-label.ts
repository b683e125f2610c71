/** Softmax over one row of logits and the winning label (ties go to the lower index). */
export interface Labelled { label: string; score: number }

export function softmaxLabel(logits: ArrayLike<number>, offset: number, labels: readonly string[]): Labelled {
  const n = labels.length;
  let best = 0;
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (logits[offset + i] > max) { max = logits[offset + i]; best = i; }
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(logits[offset + i] - max);
  return { label: labels[best], score: 1 / sum };
}
