import { InferenceRequest, InferenceResponse, Tensor, type Request } from 'tributary/bls';

export default class Mood {
  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    return Promise.all(requests.map(async (request) => {
      const text = request.input('TEXT').strings();
      // Both models batch (max_batch_size > 0), so they take a batch dimension: [1, 1].
      const tokens = await new InferenceRequest({
        model: 'sentiment_tokenize', inputs: [new Tensor('TEXT', 'BYTES', [1, 1], text)], parent: request,
      }).exec();
      const scored = await new InferenceRequest({
        model: 'sentiment_classifier',
        inputs: [tokens.output('input_ids'), tokens.output('attention_mask')],
        parent: request,
      }).exec();
      const [negative = 0, positive = 0] = scored.output('logits').data as Float32Array;
      const p = 1 / (1 + Math.exp(negative - positive));
      return new InferenceResponse({
        outputs: [
          new Tensor('LABEL', 'BYTES', [1], [p >= 0.5 ? 'POSITIVE' : 'NEGATIVE']),
          new Tensor('SCORE', 'FP32', [1], [Math.max(p, 1 - p)]),
        ],
      });
    }));
  }
}
