/**
 * `text_routed_bls`: langid steps, then the sentiment steps only when the most probable language is
 * English (class `english_class` of langid_mlp), else LABEL "unsupported language" and no SCORE.
 */
import { InferenceRequest, InferenceResponse, ModelError, Tensor } from 'tributary/bls';
import type { InitializeArgs, Request } from 'tributary/bls';

export default class TextRoutedBls {
  private english = 13;

  initialize(args: InitializeArgs): void {
    this.english = Number(args.config.parameters?.english_class?.string_value ?? '13');
  }

  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    return Promise.all(requests.map(async (r) => {
      try {
        return new InferenceResponse({ outputs: await this.route(r) });
      } catch (err) {
        return new InferenceResponse({ error: err instanceof ModelError ? err : new ModelError((err as Error).message, 'INTERNAL') });
      }
    }));
  }

  private async route(r: Request): Promise<Tensor[]> {
    const call = async (model: string, inputs: Tensor[]) => new InferenceRequest({ model, inputs, parent: r, parameters: r.parameters }).exec();
    const text = r.input('TEXT');
    const features = (await call('langid_featurize', [text])).output('FEATURES');
    const probabilities = (await call('langid_mlp', [features])).output('PROBABILITIES');
    const top = await call('langid_topk', [probabilities]);
    const language = [top.output('LANGUAGE'), top.output('PROBABILITY')];
    const p = probabilities.data as Float32Array;
    let best = 0;
    for (let i = 1; i < p.length; i++) if (p[i]! > p[best]!) best = i;
    if (best !== this.english) return [...language, new Tensor('LABEL', 'BYTES', [1, 1], ['unsupported language'])];
    const encoded = await call('sentiment_tokenize', [text]);
    const logits = (await call('sentiment_classifier', [encoded.output('input_ids'), encoded.output('attention_mask')])).output('logits');
    const label = await call('sentiment_label', [logits]);
    return [...language, label.output('LABEL'), label.output('SCORE')];
  }
}
