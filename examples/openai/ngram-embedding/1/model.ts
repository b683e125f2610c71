/** `ngram-embedding`: hashed word and trigram features of each text (hashed-ngrams.ts), 256 values. */
import { InferenceResponse, Tensor } from 'tributary/bls';
import type { Request } from 'tributary/bls';
import { hashedNgrams } from './hashed-ngrams.js';

const SIZE = 256;

export default class NgramEmbedding {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const texts = r.input('text_input').strings();
      const out = new Float32Array(texts.length * SIZE);
      texts.forEach((t, i) => out.set(hashedNgrams(t, SIZE), i * SIZE));
      return new InferenceResponse({ outputs: [new Tensor('embedding', 'FP32', [texts.length, SIZE], out)] });
    });
  }
}
