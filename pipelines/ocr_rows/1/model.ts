/** `ocr_rows` BLS model: per-image line lists, concatenated, -> padded [N, L] rows. */
import { InferenceResponse, ModelError, Tensor } from 'tributary/bls';
import type { Request } from 'tributary/bls';

export default class OcrRows {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const text = r.input('TEXT').strings();
      const boxes = r.input('BOXES').data as Float32Array;
      const scores = r.input('SCORES').data as Float32Array;
      const lines = Array.from(r.input('LINES').data as Int32Array);
      const total = lines.reduce((a, b) => a + b, 0);
      if (total !== text.length || boxes.length !== total * 4 || scores.length !== total) {
        return new InferenceResponse({ error: new ModelError(`model 'ocr_rows': LINES adds up to ${total} lines but TEXT has ${text.length}, BOXES ${boxes.length / 4}, SCORES ${scores.length}`, 'INVALID_ARG') });
      }
      const n = lines.length;
      const width = Math.max(0, ...lines);
      const rowText: string[] = [];
      const rowBoxes = new Float32Array(n * width * 4);
      const rowScores = new Float32Array(n * width);
      let from = 0;
      lines.forEach((count, i) => {
        for (let j = 0; j < width; j++) rowText.push(j < count ? text[from + j]! : '');
        rowBoxes.set(boxes.subarray(from * 4, (from + count) * 4), i * width * 4);
        rowScores.set(scores.subarray(from, from + count), i * width);
        from += count;
      });
      return new InferenceResponse({
        outputs: [
          new Tensor('ROW_TEXT', 'BYTES', [n, width], rowText),
          new Tensor('ROW_BOXES', 'FP32', [n, width, 4], rowBoxes),
          new Tensor('ROW_SCORES', 'FP32', [n, width], rowScores),
        ],
      });
    });
  }
}
