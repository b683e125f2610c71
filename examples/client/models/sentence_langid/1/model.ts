import { InferenceRequest, InferenceResponse, Tensor } from 'tributary/bls';
import type { Request } from 'tributary/bls';

/** Sentences end at . ! ? (and their full-width forms) followed by space or the end. */
export function splitSentences(text: string): string[] {
  return text.split(/(?<=[.!?。！？])\s+/).map((s) => s.trim()).filter((s) => s.length > 0);
}

export default class SentenceLangid {
  async execute(requests: Request[]): Promise<void> {
    await Promise.all(requests.map(async (r) => {
      const sender = r.responseSender();
      for (const sentence of splitSentences(r.input('TEXT').strings()[0] ?? '')) {
        if (r.isCancelled()) break;
        const res = await new InferenceRequest({
          model: 'langid', inputs: [new Tensor('TEXT', 'BYTES', [1, 1], [sentence])], parameters: { top_k: 1 }, parent: r,
        }).exec();
        await sender.send(new InferenceResponse({
          outputs: [
            new Tensor('SENTENCE', 'BYTES', [1], [sentence]),
            new Tensor('LANGUAGE', 'BYTES', [1], res.output('LANGUAGE').strings()),
            new Tensor('PROBABILITY', 'FP32', [1], res.output('PROBABILITY').data),
          ],
        }));
      }
      await sender.send(undefined, { final: true });
    }));
  }
}
