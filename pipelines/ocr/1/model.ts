/**
 * `ocr` BLS model: per image, ocr_image (decode, detector input) -> ocr_det -> ocr_image (boxes,
 * line crops) -> ocr_rec in groups of `rec_batch` crops -> ocr_ctc, then one padded row per image.
 * The same steps as the declarative `ocr_mapped` pipeline, whose `map:` sends the crops one by one.
 */
import { InferenceRequest, InferenceResponse, ModelError, Tensor } from 'tributary/bls';
import type { InitializeArgs, Request } from 'tributary/bls';

const DET_OUTPUT = 'sigmoid_0.tmp_0';
const REC_OUTPUT = 'softmax_11.tmp_0';

interface Lines { text: string[]; boxes: Float32Array; scores: Float32Array }

export default class OcrModel {
  private name = 'ocr';
  private recBatch = 8;

  initialize(args: InitializeArgs): void {
    this.name = args.modelName;
    const value = args.config.parameters?.rec_batch?.string_value ?? '8';
    this.recBatch = Number(value);
    if (!Number.isInteger(this.recBatch) || this.recBatch < 1) throw new ModelError(`model '${this.name}': parameter 'rec_batch' must be a positive integer, got '${value}'`, 'INVALID_ARG');
  }

  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    return Promise.all(requests.map(async (r) => {
      try {
        const images = r.input('IMAGE').data as Uint8Array[];
        const rows: Lines[] = [];
        for (const image of images) rows.push(await this.read(image, r));
        const text = rows.flatMap((row) => row.text);
        const padded = await new InferenceRequest({
          model: 'ocr_rows', parent: r, outputs: ['ROW_TEXT', 'ROW_BOXES', 'ROW_SCORES'],
          inputs: [
            new Tensor('TEXT', 'BYTES', [text.length], text),
            new Tensor('BOXES', 'FP32', [text.length, 4], concat(rows.map((row) => row.boxes))),
            new Tensor('SCORES', 'FP32', [text.length], concat(rows.map((row) => row.scores))),
            new Tensor('LINES', 'INT32', [rows.length], Int32Array.from(rows, (row) => row.text.length)),
          ],
        }).exec();
        return new InferenceResponse({ outputs: [['ROW_TEXT', 'TEXT'], ['ROW_BOXES', 'BOXES'], ['ROW_SCORES', 'SCORES']].map(([from, to]) => rename(padded.output(from!), to!)) });
      } catch (err) {
        return new InferenceResponse({ error: err instanceof ModelError ? err : new ModelError(`model '${this.name}': ${(err as Error).message}`, 'INTERNAL') });
      }
    }));
  }

  private async read(image: Uint8Array, parent: Request): Promise<Lines> {
    const call = async (model: string, inputs: Tensor[], outputs: string[]) =>
      new InferenceRequest({ model, inputs, outputs, parent }).exec();
    const prepared = await call('ocr_image', [new Tensor('IMAGE', 'BYTES', [1, 1], [image])], ['DET_INPUT', 'DECODED']);
    const det = await call('ocr_det', [rename(prepared.output('DET_INPUT'), 'x')], [DET_OUTPUT]);
    const cropped = await call('ocr_image', [rename(prepared.output('DECODED'), 'PIXELS'), rename(det.output(DET_OUTPUT), 'PROBABILITY_MAP')], ['CROPS', 'BOXES']);
    const crops = cropped.output('CROPS');
    const [count = 0, , , width = 0] = crops.shape;
    const per = crops.data.length / Math.max(count, 1);
    const probs: Float32Array[] = [];
    let steps = 0, classes = 0;
    for (let s = 0; s < count; s += this.recBatch) {
      const n = Math.min(this.recBatch, count - s);
      const x = new Tensor('x', 'FP32', [n, 3, 48, width], (crops.data as Float32Array).subarray(s * per, (s + n) * per));
      const out = (await call('ocr_rec', [x], [REC_OUTPUT])).output(REC_OUTPUT);
      [, steps = 0, classes = 0] = out.shape;
      probs.push(out.data as Float32Array);
    }
    const lines = await call('ocr_ctc', [new Tensor('PROBABILITIES', 'FP32', [count, steps, classes], concat(probs)), cropped.output('BOXES')], ['TEXT', 'LINE_BOXES', 'SCORES']);
    return { text: lines.output('TEXT').strings(), boxes: lines.output('LINE_BOXES').data as Float32Array, scores: lines.output('SCORES').data as Float32Array };
  }
}

const rename = (t: Tensor, name: string) => new Tensor(name, t.datatype, t.shape, t.data);

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => { out.set(p, at); return at + p.length; }, 0);
  return out;
}
