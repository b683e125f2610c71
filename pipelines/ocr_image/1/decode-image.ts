/**
 * Encoded image bytes -> RGBA8, choosing the decoder by magic number (PNG or JPEG). Runs in the
 * sandbox: jpeg-js's decoder is pure JS when asked for typed arrays (its Buffer path is not used).
 */
import { decode as decodeJpegJs } from 'jpeg-js';
import { decodePng, isPng } from './decode-png.js';
import type { RgbaImage } from './rgba-image.js';

export function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

export function decodeImage(bytes: Uint8Array): RgbaImage {
  if (isPng(bytes)) return decodePng(bytes);
  if (isJpeg(bytes)) {
    const img = decodeJpegJs(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: 40, maxMemoryUsageInMB: 256 });
    return { width: img.width, height: img.height, data: img.data as Uint8Array };
  }
  const head = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
  throw new Error(`image is neither PNG nor JPEG (${bytes.length} bytes, starts with ${head || 'nothing'})`);
}
