/** `sentiment_label` BLS model: logits [N,2] -> LABEL [N,1], SCORE [N,1]. */
import { InferenceResponse, ModelError, Tensor } from 'tributary/bls';
import type { InitializeArgs, Request } from 'tributary/bls';
import { softmaxLabel } from './softmax-label.js';

export default class SentimentLabel {
  private labels: string[] = [];

  initialize(args: InitializeArgs): void {
    this.labels = (args.config.parameters?.labels?.string_value ?? 'NEGATIVE,POSITIVE').split(',').map((s) => s.trim());
    const width = args.config.input.find((i) => i.name === 'logits')?.dims[0];
    if (this.labels.length !== width) {
      throw new ModelError(`model '${args.modelName}': parameter 'labels' names ${this.labels.length} classes, input 'logits' has ${width}`, 'INVALID_ARG');
    }
  }

  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const logits = r.input('logits').data as Float32Array;
      const n = logits.length / this.labels.length;
      const labels: string[] = [];
      const scores = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const { label, score } = softmaxLabel(logits, i * this.labels.length, this.labels);
        labels.push(label);
        scores[i] = score;
      }
      return new InferenceResponse({ outputs: [new Tensor('LABEL', 'BYTES', [n, 1], labels), new Tensor('SCORE', 'FP32', [n, 1], scores)] });
    });
  }
}
