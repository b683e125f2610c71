/**
 * PP-OCRv4 recognition input for a group of line crops: each crop is resized to height 48 keeping
 * its aspect ratio, normalised to [-1, 1], and the group is zero-padded (mid-grey) to the widest
 * crop, rounded up to a multiple of 8 (the recogniser's time stride). Width is capped at `maxWidth`.
 */
import { HALF_BGR, sampleRegion, type Region } from './sample-region.js';
import type { RgbaImage } from './rgba-image.js';

export const REC_HEIGHT = 48;

export function recWidth(region: Region, maxWidth: number): number {
  const w = region.x1 - region.x0, h = region.y1 - region.y0;
  return Math.max(8, Math.min(maxWidth, Math.ceil((REC_HEIGHT * w) / Math.max(h, 1))));
}

export interface RecBatch { data: Float32Array; count: number; width: number }

export function recInput(img: RgbaImage, regions: Region[], maxWidth = 1280): RecBatch {
  if (regions.length === 0) return { data: new Float32Array(0), count: 0, width: 8 };
  const widths = regions.map((r) => recWidth(r, maxWidth));
  const width = Math.ceil(Math.max(...widths) / 8) * 8;
  const plane = REC_HEIGHT * width;
  const data = new Float32Array(regions.length * 3 * plane);
  regions.forEach((r, i) => {
    sampleRegion(img, r, widths[i]!, REC_HEIGHT, HALF_BGR, { data, offset: i * 3 * plane, stride: width, planeHeight: REC_HEIGHT });
  });
  return { data, count: regions.length, width };
}
