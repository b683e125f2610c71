/**
 * `lande-embedding`: each text's probabilities over lande's 50 languages (lande's trained MLP,
 * MIT, imported from the installed package and run in the sandbox), in the order of the language
 * codes (afr, ara, ..., vie), scaled to unit length so that the dot product of two is their
 * cosine similarity. Two texts in one language come out close whatever they say.
 */
import './atob.js';
import lande from 'lande';
import { InferenceResponse, Tensor } from 'tributary/bls';
import type { Request } from 'tributary/bls';

export function embed(text: string): Float32Array {
  const pairs = lande(text).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const v = Float32Array.from(pairs, (p) => p[1]);
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

export default class LandeEmbedding {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const texts = r.input('text_input').strings();
      const out = new Float32Array(texts.length * 50);
      texts.forEach((t, i) => out.set(embed(t), i * 50));
      return new InferenceResponse({ outputs: [new Tensor('embedding', 'FP32', [texts.length, 50], out)] });
    });
  }
}
