/**
 * `ocr_image` BLS model: the image side of OCR, in two calls per image. With IMAGE it decodes the
 * PNG/JPEG and returns the detector's input and the decoded pixels; with PIXELS and the detector's
 * PROBABILITY_MAP it finds the text line boxes and returns one recogniser crop per box. The pixels
 * travel between the two calls so the image is decoded once.
 */
import { InferenceResponse, ModelError, Tensor } from 'tributary/bls';
import type { InitializeArgs, Request } from 'tributary/bls';
import { decodeImage } from './decode-image.js';
import { detInput } from './det-input.js';
import { findBoxes } from './find-boxes.js';
import { REC_HEIGHT, recInput } from './rec-input.js';

export default class OcrImage {
  private name = 'ocr_image';
  private limitSide = 960;
  private recMaxWidth = 1280;

  initialize(args: InitializeArgs): void {
    this.name = args.modelName;
    const param = (key: string, fallback: number) => {
      const value = args.config.parameters?.[key]?.string_value ?? String(fallback);
      const n = Number(value);
      if (!Number.isInteger(n) || n < 8) throw new ModelError(`model '${this.name}': parameter '${key}' must be an integer >= 8, got '${value}'`, 'INVALID_ARG');
      return n;
    };
    this.limitSide = param('limit_side', 960);
    this.recMaxWidth = param('rec_max_width', 1280);
  }

  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      try {
        return new InferenceResponse({ outputs: r.hasInput('IMAGE') ? this.prepare(r) : this.crop(r) });
      } catch (err) {
        return new InferenceResponse({ error: err instanceof ModelError ? err : new ModelError(`model '${this.name}': ${(err as Error).message}`, 'INTERNAL') });
      }
    });
  }

  private prepare(r: Request): Tensor[] {
    const [bytes] = r.input('IMAGE').data as Uint8Array[];
    let img;
    try {
      img = decodeImage(bytes!);
    } catch (err) {
      throw new ModelError(`model '${this.name}': input 'IMAGE'[0]: ${(err as Error).message}`, 'INVALID_ARG');
    }
    const det = detInput(img, this.limitSide);
    return [
      new Tensor('DET_INPUT', 'FP32', [1, 3, det.height, det.width], det.data),
      new Tensor('DECODED', 'UINT8', [img.height, img.width, 4], img.data),
    ];
  }

  private crop(r: Request): Tensor[] {
    if (!r.hasInput('PIXELS') || !r.hasInput('PROBABILITY_MAP')) {
      throw new ModelError(`model '${this.name}': send either IMAGE, or PIXELS and PROBABILITY_MAP`, 'INVALID_ARG');
    }
    const pixels = r.input('PIXELS');
    const map = r.input('PROBABILITY_MAP');
    const [height, width] = pixels.shape as [number, number];
    const img = { width, height, data: pixels.data as Uint8Array };
    const [, , mh, mw] = map.shape as [number, number, number, number];
    const boxes = findBoxes(map.data as Float32Array, mw, mh, width, height);
    const crops = recInput(img, boxes, this.recMaxWidth);
    return [
      new Tensor('CROPS', 'FP32', [crops.count, 3, REC_HEIGHT, crops.width], crops.data),
      new Tensor('BOXES', 'FP32', [boxes.length, 4], Float32Array.from(boxes.flatMap((b) => [b.x0, b.y0, b.x1, b.y1]))),
    ];
  }
}
