/**
 * The OCR control flow, independent of where the models run: detect -> boxes -> crops ->
 * recognise in groups -> CTC decode. The model calls are injected, so the BLS model passes BLS
 * calls and the unit tests pass onnxruntime sessions; the logic is the same code in both.
 */
import { ctcGreedyDecode } from './ctc-decode.js';
import { detInput } from './det-input.js';
import { DB_DEFAULTS, findBoxes, type FindBoxesOptions, type TextBox } from './find-boxes.js';
import { recInput, recWidth } from './rec-input.js';
import type { RgbaImage } from './rgba-image.js';

export interface FloatTensor { data: Float32Array; dims: readonly number[] }

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
  const [, , mh, mw] = dimsOf(map.dims, 4, 'detector');
  const boxes = findBoxes(map.data, mw, mh, img.width, img.height, opts.boxes);
  // similar widths share a recognition batch, so little of each batch is padding
  const order = boxes.map((_, i) => i).sort((a, b) => recWidth(boxes[a]!, opts.recMaxWidth) - recWidth(boxes[b]!, opts.recMaxWidth));
  const lines: (TextLine | undefined)[] = new Array(boxes.length);
  for (let s = 0; s < order.length; s += opts.recBatch) {
    const group = order.slice(s, s + opts.recBatch);
    const batch = recInput(img, group.map((i) => boxes[i]!), opts.recMaxWidth);
    const out = await models.recognise(batch.data, batch.count, batch.width);
    const [n, steps, classes] = dimsOf(out.dims, 3, 'recogniser');
    if (n !== group.length) throw new Error(`recogniser returned ${n} results for ${group.length} crops`);
    group.forEach((boxIndex, j) => {
      const { text, score } = ctcGreedyDecode(out.data, j * steps * classes, steps, classes, opts.charset);
      lines[boxIndex] = { text, box: boxes[boxIndex]!, score };
    });
  }
  return lines.filter((l): l is TextLine => !!l && l.text.trim() !== '' && l.score >= opts.dropScore);
}

/** A model output's dims, refused unless of the rank the post-processing reads. */
function dimsOf<N extends 3 | 4>(dims: readonly number[], rank: N, model: string): N extends 3 ? readonly [number, number, number] : readonly [number, number, number, number] {
  if (dims.length !== rank) throw new Error(`${model} returned an output of shape [${dims.join(', ')}]; expected ${rank} dims`);
  return dims as N extends 3 ? readonly [number, number, number] : readonly [number, number, number, number];
}
