/**
 * PNG -> RGBA8, pure TypeScript (no zlib, no Buffer) so it runs inside the BLS sandbox.
 * Supports every colour type and bit depth of the PNG spec without interlacing; Adam7-interlaced
 * files are rejected with a clear message (rare for scans and screenshots). CRCs are not checked:
 * the zlib stream and filter bytes already reject truncated or corrupt data.
 */
import { inflateZlib } from './inflate.js';
import type { RgbaImage } from './rgba-image.js';

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && SIGNATURE.every((b, i) => bytes[i] === b);
}

interface Header { width: number; height: number; depth: number; colorType: number; interlace: number }

export function decodePng(bytes: Uint8Array, maxPixels = 40_000_000): RgbaImage {
  if (!isPng(bytes)) throw new Error('not a PNG file (bad signature)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let header: Header | undefined;
  let palette: Uint8Array | undefined;
  let trns: Uint8Array | undefined;
  const idat: Uint8Array[] = [];
  for (let pos = 8; pos + 8 <= bytes.length;) {
    const len = view.getUint32(pos);
    const type = String.fromCharCode(...bytes.subarray(pos + 4, pos + 8));
    const body = bytes.subarray(pos + 8, pos + 8 + len);
    if (body.length !== len) throw new Error(`PNG chunk ${type} is truncated`);
    if (type === 'IHDR') {
      if (len < 13) throw new Error(`PNG IHDR chunk has ${len} bytes; the PNG spec fixes it at 13`);
      header = { width: view.getUint32(pos + 8), height: view.getUint32(pos + 12), depth: body[8]!, colorType: body[9]!, interlace: body[12]! };
    } else if (type === 'PLTE') palette = body;
    else if (type === 'tRNS') trns = body;
    else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  if (!header) throw new Error('PNG has no IHDR chunk');
  const { width, height, depth, colorType, interlace } = header;
  const channels = CHANNELS[colorType];
  if (!channels || ![1, 2, 4, 8, 16].includes(depth)) throw new Error(`PNG colour type ${colorType} with bit depth ${depth} is invalid`);
  if (interlace) throw new Error('interlaced (Adam7) PNG is not supported; save the image without interlacing');
  if (width === 0 || height === 0 || width * height > maxPixels) throw new Error(`PNG size ${width}x${height} is empty or over ${maxPixels} pixels`);
  if (colorType === 3 && !palette) throw new Error('palette PNG has no PLTE chunk');
  if (idat.length === 0) throw new Error('PNG has no image data (IDAT)');

  const compressed = idat.length === 1 ? idat[0]! : concat(idat);
  const stride = Math.ceil((width * channels * depth) / 8);
  const raw = inflateZlib(compressed, (stride + 1) * height);
  if (raw.length < (stride + 1) * height) throw new Error(`PNG image data is short: ${raw.length} of ${(stride + 1) * height} bytes`);
  const pixels = unfilter(raw, stride, height, Math.max(1, (channels * depth) >> 3));
  return { width, height, data: toRgba(pixels, header, channels, stride, palette, trns) };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

/**
 * Reverses PNG's per-row filters (None, Sub, Up, Average, Paeth) in place into a new buffer.
 * The caller checked raw holds (stride + 1) * height bytes, so every index below is in range.
 */
function unfilter(raw: Uint8Array, stride: number, height: number, bpp: number): Uint8Array {
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const prev = row - stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? out[row + x - bpp]! : 0;
      const b = y > 0 ? out[prev + x]! : 0;
      const c = x >= bpp && y > 0 ? out[prev + x - bpp]! : 0;
      let v = raw[src + x]!;
      switch (filter) {
        case 0: break;
        case 1: v += a; break;
        case 2: v += b; break;
        case 3: v += (a + b) >> 1; break;
        case 4: {
          const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
          v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: throw new Error(`PNG row ${y} has unknown filter type ${filter}`);
      }
      out[row + x] = v;
    }
  }
  return out;
}

function toRgba(px: Uint8Array, h: Header, channels: number, stride: number, palette?: Uint8Array, trns?: Uint8Array): Uint8Array {
  const { width, height, depth, colorType } = h;
  const out = new Uint8Array(width * height * 4);
  const maxv = (1 << Math.min(depth, 8)) - 1;
  // sample(x, ch) -> 8-bit value (16-bit samples rounded to 8 bits; low depths are scaled later);
  // px holds stride * height bytes, which covers every (x, ch) of the image.
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    const sample = (x: number, ch: number): number => {
      const i = x * channels + ch;
      if (depth === 8) return px[row + i]!;
      if (depth === 16) return Math.round(((px[row + i * 2]! << 8) | px[row + i * 2 + 1]!) / 257);
      const bit = i * depth;
      return (px[row + (bit >> 3)]! >> (8 - depth - (bit & 7))) & maxv;
    };
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      if (colorType === 3) {
        const idx = sample(x, 0);
        // An index past a short PLTE is out of spec; it reads as black, as it always has.
        out[o] = palette![idx * 3] ?? 0; out[o + 1] = palette![idx * 3 + 1] ?? 0; out[o + 2] = palette![idx * 3 + 2] ?? 0;
        out[o + 3] = trns && idx < trns.length ? trns[idx]! : 255;
        continue;
      }
      const scale = depth < 8 ? 255 / maxv : 1;
      if (colorType === 0 || colorType === 4) {
        const g = sample(x, 0) * scale;
        out[o] = out[o + 1] = out[o + 2] = g;
        out[o + 3] = colorType === 4 ? sample(x, 1) : 255;
      } else {
        out[o] = sample(x, 0); out[o + 1] = sample(x, 1); out[o + 2] = sample(x, 2);
        out[o + 3] = colorType === 6 ? sample(x, 3) : 255;
      }
    }
  }
  return out;
}
