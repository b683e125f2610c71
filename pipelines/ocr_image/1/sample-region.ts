/**
 * Bilinear resampling of an RGBA region straight into a normalised planar (CHW) float tensor, the
 * layout PaddleOCR's models take. Channels are written in BGR order, as PaddleOCR's OpenCV-based
 * training pipeline fed them, and transparent pixels are composited over white first.
 */
import type { RgbaImage } from './rgba-image.js';

export interface Region { x0: number; y0: number; x1: number; y1: number }

export interface PlanarTarget {
  data: Float32Array;
  /** element offset of this image's channel 0 */
  offset: number;
  /** row length of the target planes (>= width when padded) */
  stride: number;
  /** rows per plane */
  planeHeight: number;
}

/** mean/std per output channel (B, G, R), applied to value/255 */
export interface Normalisation { mean: readonly number[]; std: readonly number[] }

export const IMAGENET_BGR: Normalisation = { mean: [0.406, 0.456, 0.485], std: [0.225, 0.224, 0.229] };
export const HALF_BGR: Normalisation = { mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] };

export function sampleRegion(img: RgbaImage, region: Region, width: number, height: number, norm: Normalisation, target: PlanarTarget): void {
  const { data, offset, stride, planeHeight } = target;
  const plane = stride * planeHeight;
  const sx = (region.x1 - region.x0) / width;
  const sy = (region.y1 - region.y0) / height;
  const px = img.data;
  const W = img.width, H = img.height;
  // Indexes below are in range: three channels per Normalisation, pixel coordinates clamped to the image.
  const scale = [0, 1, 2].map((c) => 1 / (255 * norm.std[c]!));
  const bias = [0, 1, 2].map((c) => norm.mean[c]! / norm.std[c]!);
  for (let y = 0; y < height; y++) {
    // pixel-centre mapping, as OpenCV's INTER_LINEAR does
    const fy = Math.min(Math.max(region.y0 + (y + 0.5) * sy - 0.5, 0), H - 1);
    const y0 = Math.floor(fy), y1 = Math.min(y0 + 1, H - 1), wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(Math.max(region.x0 + (x + 0.5) * sx - 0.5, 0), W - 1);
      const x0 = Math.floor(fx), x1 = Math.min(x0 + 1, W - 1), wx = fx - x0;
      const i00 = (y0 * W + x0) * 4, i01 = (y0 * W + x1) * 4, i10 = (y1 * W + x0) * 4, i11 = (y1 * W + x1) * 4;
      const o = offset + y * stride + x;
      for (let c = 0; c < 3; c++) {
        const ch = 2 - c; // BGR
        const v00 = over(px[i00 + ch]!, px[i00 + 3]!), v01 = over(px[i01 + ch]!, px[i01 + 3]!);
        const v10 = over(px[i10 + ch]!, px[i10 + 3]!), v11 = over(px[i11 + ch]!, px[i11 + 3]!);
        const v = (v00 * (1 - wx) + v01 * wx) * (1 - wy) + (v10 * (1 - wx) + v11 * wx) * wy;
        data[o + c * plane] = v * scale[c]! - bias[c]!;
      }
    }
  }
}

const over = (v: number, a: number) => (a === 255 ? v : (v * a + 255 * (255 - a)) / 255);
