/**
 * PP-OCRv4 detection input: the whole image resized so its long side is at most `limitSide` and
 * both sides are multiples of 32 (the DB network's stride), ImageNet-normalised, [1,3,H,W].
 */
import { IMAGENET_BGR, sampleRegion } from './sample-region.js';
import type { RgbaImage } from './rgba-image.js';

export interface DetInput { data: Float32Array; width: number; height: number }

export function detInputSize(width: number, height: number, limitSide = 960): { width: number; height: number } {
  const ratio = Math.min(1, limitSide / Math.max(width, height));
  const round32 = (v: number) => Math.max(32, Math.round((v * ratio) / 32) * 32);
  return { width: round32(width), height: round32(height) };
}

export function detInput(img: RgbaImage, limitSide = 960): DetInput {
  const { width, height } = detInputSize(img.width, img.height, limitSide);
  const data = new Float32Array(3 * width * height);
  sampleRegion(img, { x0: 0, y0: 0, x1: img.width, y1: img.height }, width, height, IMAGENET_BGR,
    { data, offset: 0, stride: width, planeHeight: height });
  return { data, width, height };
}
