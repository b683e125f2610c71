/**
 * `ocr_ctc` BLS model: one image's recogniser output -> its text lines. LINES (the count) lets a
 * batch's lines, concatenated image after image, be split back into rows by `ocr_rows`.
 */
import { InferenceResponse, ModelError, Tensor } from 'tributary/bls';
import type { InitializeArgs, Request } from 'tributary/bls';
import { ctcCharset, ctcGreedyDecode } from './ctc-decode.js';

export default class OcrCtc {
  private name = 'ocr_ctc';
  private charset: string[] = [];
  private dropScore = 0.5;

  initialize(args: InitializeArgs): void {
    this.name = args.modelName;
    const keys = `${args.modelVersion}/ppocr_keys_v1.txt`;
    if (!(keys in args.files)) {
      throw new ModelError(`model '${this.name}': ${keys} is missing; build the pipeline files with: npm run build-models`, 'UNAVAILABLE');
    }
    this.charset = ctcCharset(args.readText(keys));
    const drop = args.config.parameters?.drop_score?.string_value ?? '0.5';
    this.dropScore = Number(drop);
    if (!(this.dropScore >= 0 && this.dropScore <= 1)) throw new ModelError(`model '${this.name}': parameter 'drop_score' must be a number from 0 to 1, got '${drop}'`, 'INVALID_ARG');
  }

  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      try {
        return new InferenceResponse({ outputs: this.decode(r) });
      } catch (err) {
        return new InferenceResponse({ error: err instanceof ModelError ? err : new ModelError(`model '${this.name}': ${(err as Error).message}`, 'INTERNAL') });
      }
    });
  }

  private decode(r: Request): Tensor[] {
    const probs = r.input('PROBABILITIES');
    const boxes = r.input('BOXES').data as Float32Array;
    const [count = 0, steps = 0, classes = 0] = probs.shape;
    if (count * 4 !== boxes.length) {
      throw new ModelError(`model '${this.name}': input 'PROBABILITIES' holds ${count} lines but 'BOXES' holds ${boxes.length / 4}`, 'INVALID_ARG');
    }
    const text: string[] = [];
    const kept: number[] = [];
    const scores: number[] = [];
    for (let i = 0; i < count; i++) {
      const line = ctcGreedyDecode(probs.data as Float32Array, i * steps * classes, steps, classes, this.charset);
      if (line.text.trim() === '' || line.score < this.dropScore) continue;
      text.push(line.text);
      scores.push(line.score);
      kept.push(i);
    }
    const lineBoxes = new Float32Array(kept.length * 4);
    kept.forEach((i, j) => lineBoxes.set(boxes.subarray(i * 4, i * 4 + 4), j * 4));
    return [
      new Tensor('TEXT', 'BYTES', [text.length], text),
      new Tensor('LINE_BOXES', 'FP32', [kept.length, 4], lineBoxes),
      new Tensor('SCORES', 'FP32', [scores.length], Float32Array.from(scores)),
      new Tensor('LINES', 'INT32', [1], Int32Array.of(text.length)),
    ];
  }
}
