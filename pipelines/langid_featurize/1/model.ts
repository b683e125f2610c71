/** `langid_featurize` BLS model: TEXT [N,1] -> FEATURES [N,620] (see featurize.ts). */
import { InferenceResponse, ModelError, Tensor } from 'tributary/bls';
import type { InitializeArgs, Request } from 'tributary/bls';
import { featureCount, featurize, type NgramLists } from './featurize.js';

export default class LangidFeaturize {
  private lists!: NgramLists;
  private width = 0;

  initialize(args: InitializeArgs): void {
    const file = `${args.modelVersion}/ngrams.json`;
    if (!(file in args.files)) {
      throw new ModelError(`model '${args.modelName}': ${file} is missing; build the pipeline files with: npm run build-models`, 'UNAVAILABLE');
    }
    this.lists = args.readJson<NgramLists>(file);
    this.width = featureCount(this.lists);
    const declared = args.config.output.find((o) => o.name === 'FEATURES')?.dims[0];
    if (declared !== this.width) {
      throw new ModelError(`model '${args.modelName}': ${file} gives ${this.width} features but output 'FEATURES' declares ${declared}`, 'INVALID_ARG');
    }
  }

  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const texts = r.input('TEXT').strings();
      const out = new Float32Array(texts.length * this.width);
      texts.forEach((t, i) => featurize(t, this.lists, out, i * this.width));
      return new InferenceResponse({ outputs: [new Tensor('FEATURES', 'FP32', [texts.length, this.width], out)] });
    });
  }
}
