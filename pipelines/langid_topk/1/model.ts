/**
 * `langid_topk` BLS model: PROBABILITIES [N,50] -> LANGUAGE [N,k] (ISO 639-3), PROBABILITY [N,k],
 * best first. k is the request parameter `top_k` (ensembles pass request parameters to their
 * steps), else the config parameter `default_top_k`.
 */
import { InferenceResponse, ModelError, Tensor } from 'tributary/bls';
import type { InitializeArgs, Request } from 'tributary/bls';
import { parseTopK, topK } from './top-k.js';

export default class LangidTopK {
  private name = 'langid_topk';
  private languages: string[] = [];
  private defaultK = 3;

  initialize(args: InitializeArgs): void {
    this.name = args.modelName;
    const file = `${args.modelVersion}/languages.json`;
    if (!(file in args.files)) {
      throw new ModelError(`model '${this.name}': ${file} is missing; build the pipeline files with: npm run build-models`, 'UNAVAILABLE');
    }
    this.languages = args.readJson<string[]>(file);
    const k = parseTopK(args.config.parameters?.default_top_k?.string_value, 3, this.languages.length);
    if (typeof k === 'string') throw new ModelError(`model '${this.name}': config ${k.replace('top_k', 'default_top_k')}`, 'INVALID_ARG');
    this.defaultK = k;
  }

  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const k = parseTopK(r.parameters.top_k, this.defaultK, this.languages.length);
      if (typeof k === 'string') return new InferenceResponse({ error: new ModelError(`model '${this.name}': ${k}`, 'INVALID_ARG') });
      const probs = r.input('PROBABILITIES');
      const classes = this.languages.length;
      if (probs.shape[probs.shape.length - 1] !== classes) {
        return new InferenceResponse({ error: new ModelError(`model '${this.name}': input 'PROBABILITIES' has ${probs.shape.at(-1)} classes, languages.json has ${classes}`, 'INVALID_ARG') });
      }
      const data = probs.data as Float32Array;
      const n = data.length / classes;
      const codes: string[] = [];
      const values = new Float32Array(n * k);
      for (let i = 0; i < n; i++) {
        const row = data.subarray(i * classes, (i + 1) * classes);
        topK(row, k).forEach((c, j) => { codes.push(this.languages[c]); values[i * k + j] = row[c]; });
      }
      return new InferenceResponse({
        outputs: [new Tensor('LANGUAGE', 'BYTES', [n, k], codes), new Tensor('PROBABILITY', 'FP32', [n, k], values)],
      });
    });
  }
}
