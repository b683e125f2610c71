/**
 * `ocr` BLS model: decodes each image, then calls `ocr_det` and `ocr_rec` (ONNX) through BLS and
 * returns one string, box and score per detected line, top to bottom. The control flow itself is
 * read-text.ts (shared with the Node unit tests); this file is the sandbox glue.
 */
import { InferenceRequest, InferenceResponse, ModelError, Tensor } from 'tributary/bls';
import type { InitializeArgs, Request } from 'tributary/bls';
import { ctcCharset } from './ctc-decode.js';
import { decodeImage } from './decode-image.js';
import { OCR_DEFAULTS, readText, type OcrModels, type OcrOptions, type TextLine } from './read-text.js';
import type { RgbaImage } from './rgba-image.js';

const DET_OUTPUT = 'sigmoid_0.tmp_0';
const REC_OUTPUT = 'softmax_11.tmp_0';

export default class OcrModel {
  private name = 'ocr';
  private det = 'ocr_det';
  private rec = 'ocr_rec';
  private opts!: OcrOptions;

  initialize(args: InitializeArgs): void {
    this.name = args.modelName;
    const param = (key: string, fallback: string) => args.config.parameters?.[key]?.string_value ?? fallback;
    const keys = `${args.modelVersion}/ppocr_keys_v1.txt`;
    if (!(keys in args.files)) {
      throw new ModelError(`model '${this.name}': ${keys} is missing; build the pipeline files with: npm run build-models`, 'UNAVAILABLE');
    }
    this.det = param('det_model', this.det);
    this.rec = param('rec_model', this.rec);
    this.opts = {
      ...OCR_DEFAULTS,
      charset: ctcCharset(args.readText(keys)),
      recBatch: positive(param('rec_batch', '8'), 'rec_batch'),
      limitSide: positive(param('limit_side', '960'), 'limit_side'),
      dropScore: Number(param('drop_score', '0.5')),
    };
  }

  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    return Promise.all(requests.map((r) => this.answer(r)));
  }

  private async answer(request: Request): Promise<InferenceResponse> {
    const images = request.input('IMAGE').data as Uint8Array[];
    const decoded: RgbaImage[] = [];
    for (let i = 0; i < images.length; i++) {
      try {
        decoded.push(decodeImage(images[i]));
      } catch (err) {
        return new InferenceResponse({ error: new ModelError(`model '${this.name}': input 'IMAGE'[${i}]: ${(err as Error).message}`, 'INVALID_ARG') });
      }
    }
    try {
      const models = this.models(request);
      const results: TextLine[][] = [];
      for (const img of decoded) results.push(await readText(img, models, this.opts));
      return new InferenceResponse({ outputs: toTensors(results) });
    } catch (err) {
      if (err instanceof ModelError) return new InferenceResponse({ error: err });
      return new InferenceResponse({ error: new ModelError(`model '${this.name}': ${(err as Error).message}`, 'INTERNAL') });
    }
  }

  private models(parent: Request): OcrModels {
    const call = async (model: string, output: string, x: Float32Array, shape: number[]) => {
      const res = await new InferenceRequest({ model, inputs: [new Tensor('x', 'FP32', shape, x)], outputs: [output], parent }).exec();
      const t = res.output(output);
      return { data: t.data as Float32Array, dims: t.shape };
    };
    return {
      detect: (x, h, w) => call(this.det, DET_OUTPUT, x, [1, 3, h, w]),
      recognise: (x, n, w) => call(this.rec, REC_OUTPUT, x, [n, 3, 48, w]),
    };
  }
}

function positive(value: string, key: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ModelError(`model 'ocr': parameter '${key}' must be a positive integer, got '${value}'`, 'INVALID_ARG');
  return n;
}

/** Rows of different lengths become [N, L] tensors padded with "" / zeros (L = longest row). */
function toTensors(results: TextLine[][]): Tensor[] {
  const n = results.length;
  const width = Math.max(0, ...results.map((r) => r.length));
  const text: string[] = [];
  const boxes = new Float32Array(n * width * 4);
  const scores = new Float32Array(n * width);
  results.forEach((lines, i) => {
    for (let j = 0; j < width; j++) {
      const line = lines[j];
      text.push(line?.text ?? '');
      if (!line) continue;
      boxes.set([line.box.x0, line.box.y0, line.box.x1, line.box.y1], (i * width + j) * 4);
      scores[i * width + j] = line.score;
    }
  });
  return [
    new Tensor('TEXT', 'BYTES', [n, width], text),
    new Tensor('BOXES', 'FP32', [n, width, 4], boxes),
    new Tensor('SCORES', 'FP32', [n, width], scores),
  ];
}
