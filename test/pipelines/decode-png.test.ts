// The sandbox-safe PNG decoder and inflater against Node's zlib and pngjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync, deflateSync } from 'node:zlib';
import { PNG } from 'pngjs';
import { inflateRaw, inflateZlib } from '../../pipelines/ocr_image/1/inflate.js';
import { decodePng } from '../../pipelines/ocr_image/1/decode-png.js';
import { decodeImage } from '../../pipelines/ocr_image/1/decode-image.js';
import { renderText } from './render-text.js';

function noise(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) { s = (s * 1103515245 + 12345) >>> 0; out[i] = (s >>> 16) & (i % 3 ? 0x0f : 0xff); }
  return out;
}

test('inflate matches zlib for stored, fixed and dynamic Huffman blocks', () => {
  const inputs = [new Uint8Array(0), new TextEncoder().encode('a'), noise(70_000, 1), new Uint8Array(100_000).fill(7)];
  for (const input of inputs) {
    for (const level of [0, 1, 6, 9]) {
      assert.deepEqual(inflateRaw(deflateRawSync(input, { level })), input, `raw, level ${level}, ${input.length} bytes`);
      assert.deepEqual(inflateZlib(deflateSync(input, { level })), input, `zlib, level ${level}`);
    }
  }
  const fixed = deflateRawSync(new TextEncoder().encode('abcabcabcabc'), { strategy: 4 /* Z_FIXED */ });
  assert.equal(new TextDecoder().decode(inflateRaw(fixed)), 'abcabcabcabc');
});

test('inflate rejects truncated and corrupt streams with a message', () => {
  const z = deflateSync(noise(5000, 2));
  assert.throws(() => inflateZlib(z.subarray(0, z.length / 2)), /ends early/);
  assert.throws(() => inflateZlib(new Uint8Array([0x12, 0x34, 0, 0])), /not a zlib stream/);
});

test('PNG decoding matches pngjs for grey, grey+alpha, RGB, RGBA at 8 and 16 bits', () => {
  const width = 37, height = 23;
  for (const [colorType, inputHasAlpha] of [[0, false], [4, true], [2, false], [6, true]] as const) {
    for (const bitDepth of [8, 16] as const) {
      const png = new PNG({ width, height, colorType, inputHasAlpha, bitDepth });
      png.data = Buffer.from(noise(width * height * 4, colorType * 100 + bitDepth).map((v, i) => (i % 4 === 3 && !inputHasAlpha ? 255 : v)));
      if (bitDepth === 16) {
        // pngjs takes 16-bit input as a Uint16 array; give it the 8-bit values scaled up
        png.data = Buffer.from(new Uint16Array(Array.from(png.data, (v) => v * 257)).buffer) as never;
      }
      const bytes = new Uint8Array(PNG.sync.write(png, { colorType, inputHasAlpha, bitDepth, inputColorType: 6 }));
      const expected = PNG.sync.read(Buffer.from(bytes));
      const ours = decodePng(bytes);
      assert.equal(ours.width, width);
      assert.equal(ours.height, height);
      // pngjs rescales 16-bit samples to 8 bits on read (round(v * 255 / 65535)), as we do for v * 257
      assert.deepEqual(ours.data, new Uint8Array(expected.data), `colour type ${colorType}, depth ${bitDepth}`);
    }
  }
});

test('canvas PNG and JPEG decode to the same picture; other bytes are refused by name', () => {
  const png = decodeImage(renderText(['Hello'], { format: 'png' }));
  const jpg = decodeImage(renderText(['Hello'], { format: 'jpeg' }));
  assert.equal(png.width, jpg.width);
  assert.equal(png.height, jpg.height);
  let diff = 0;
  for (let i = 0; i < png.data.length; i++) diff += Math.abs(png.data[i]! - jpg.data[i]!);
  assert.ok(diff / png.data.length < 4, `mean abs difference ${diff / png.data.length}`);
  assert.throws(() => decodeImage(new TextEncoder().encode('GIF89a...')), /neither PNG nor JPEG \(9 bytes, starts with 47 49 46 38\)/);
  assert.throws(() => decodeImage(renderText(['x']).subarray(0, 60)), /truncated|IDAT|short|ends early/);
});

test('palette PNG with 2-bit indices and tRNS decodes to the palette colours', () => {
  // 5x2 image, indices packed 4 per byte, filter 0 per row; CRCs left zero (not checked)
  const indices = [[0, 1, 2, 3, 1], [3, 2, 1, 0, 2]];
  const rows = indices.map((r) => [0, (r[0]! << 6) | (r[1]! << 4) | (r[2]! << 2) | r[3]!, r[4]! << 6]);
  const chunk = (type: string, body: number[]) => {
    const len = [24, 16, 8, 0].map((s) => (body.length >>> s) & 255);
    return [...len, ...new TextEncoder().encode(type), ...body, 0, 0, 0, 0];
  };
  const palette = [255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30];
  const bytes = new Uint8Array([
    137, 80, 78, 71, 13, 10, 26, 10,
    ...chunk('IHDR', [0, 0, 0, 5, 0, 0, 0, 2, 2, 3, 0, 0, 0]),
    ...chunk('PLTE', palette),
    ...chunk('tRNS', [255, 128]),
    ...chunk('IDAT', [...deflateSync(Uint8Array.from(rows.flat()))]),
    ...chunk('IEND', []),
  ]);
  const img = decodePng(bytes);
  const expected = indices.flat().flatMap((i) => [...palette.slice(i * 3, i * 3 + 3), i === 0 ? 255 : i === 1 ? 128 : 255]);
  assert.deepEqual([...img.data], expected);
});

test('an IHDR shorter than the 13 bytes the spec fixes is refused, not read past its end', () => {
  const chunk = (type: string, body: number[]) => {
    const len = [24, 16, 8, 0].map((s) => (body.length >>> s) & 255);
    return [...len, ...new TextEncoder().encode(type), ...body, 0, 0, 0, 0];
  };
  // 1x1 grey, 8 bits, with the interlace byte (and the two before it) cut off
  const bytes = new Uint8Array([
    137, 80, 78, 71, 13, 10, 26, 10,
    ...chunk('IHDR', [0, 0, 0, 1, 0, 0, 0, 1, 8, 0]),
    ...chunk('IDAT', [...deflateSync(Uint8Array.from([0, 7]))]),
    ...chunk('IEND', []),
  ]);
  assert.throws(() => decodePng(bytes), /PNG IHDR chunk has 10 bytes; the PNG spec fixes it at 13/);
});
