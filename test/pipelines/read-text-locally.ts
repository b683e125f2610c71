/**
 * The OCR steps' pure modules composed in Node, as the `ocr` pipeline chains them (decode ->
 * detector input -> detect -> boxes -> crops -> recognise in groups -> CTC decode), with the model
 * calls injected so the tests can run the real ONNX models through onnxruntime in-process.
 */
import { ctcGreedyDecode } from '../../pipelines/ocr_ctc/1/ctc-decode.js';
import { detInput } from '../../pipelines/ocr_image/1/det-input.js';
import { DB_DEFAULTS, findBoxes, type FindBoxesOptions, type TextBox } from '../../pipelines/ocr_image/1/find-boxes.js';
import { recInput } from '../../pipelines/ocr_image/1/rec-input.js';
import type { RgbaImage } from '../../pipelines/ocr_image/1/rgba-image.js';

interface FloatTensor { data: Float32Array; dims: readonly number[] }

export interface OcrModels {
  /** x [1,3,H,W] -> probability map [1,1,H,W] */
  detect(x: Float32Array, height: number, width: number): Promise<FloatTensor>;
  /** x [N,3,48,W] -> class probabilities [N,T,C] */
  recognise(x: Float32Array, count: number, width: number): Promise<FloatTensor>;
}

export interface OcrOptions {
  charset: string[];
  limitSide: number;
  recBatch: number;
  recMaxWidth: number;
  dropScore: number;
  boxes: FindBoxesOptions;
}

export const OCR_DEFAULTS: Omit<OcrOptions, 'charset'> = { limitSide: 960, recBatch: 8, recMaxWidth: 1280, dropScore: 0.5, boxes: DB_DEFAULTS };

export interface TextLine { text: string; box: TextBox; score: number }

export async function readText(img: RgbaImage, models: OcrModels, opts: OcrOptions): Promise<TextLine[]> {
  const det = detInput(img, opts.limitSide);
  const map = await models.detect(det.data, det.height, det.width);
  const [, , mh, mw] = map.dims as [number, number, number, number];
  const boxes = findBoxes(map.data, mw, mh, img.width, img.height, opts.boxes);
  const crops = recInput(img, boxes, opts.recMaxWidth);
  const per = 3 * 48 * crops.width;
  const lines: TextLine[] = [];
  for (let s = 0; s < boxes.length; s += opts.recBatch) {
    const n = Math.min(opts.recBatch, boxes.length - s);
    const out = await models.recognise(crops.data.subarray(s * per, (s + n) * per), n, crops.width);
    const [, steps, classes] = out.dims as [number, number, number];
    for (let j = 0; j < n; j++) {
      const { text, score } = ctcGreedyDecode(out.data, j * steps * classes, steps, classes, opts.charset);
      if (text.trim() !== '' && score >= opts.dropScore) lines.push({ text, box: boxes[s + j]!, score });
    }
  }
  return lines;
}
