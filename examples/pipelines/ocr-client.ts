/**
 * OCR over HTTP: `node --import tsx examples/pipelines/ocr-client.ts page.png [more.jpg ...]`
 * against `npm start` (or TRIBUTARY_URL). Images travel as BYTES with the binary tensor extension
 * (raw image bytes are not valid JSON strings); the results come back as JSON.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { defaultUrl, infer, output, rows } from './v2-fetch.js';

export interface OcrLine { text: string; box: [number, number, number, number]; score: number }

/** One list of lines per image, top to bottom (padding rows of a batch are dropped). */
export async function readImages(baseUrl: string, images: Uint8Array[]): Promise<OcrLine[][]> {
  const res = await infer(baseUrl, 'ocr', [{ name: 'IMAGE', datatype: 'BYTES', shape: [images.length, 1], bytes: images }]);
  const text = output(res, 'TEXT');
  const lines = text.shape[1] ?? 0;
  const texts = rows<string>({ ...text, shape: [images.length, lines] });
  const scores = rows<number>({ ...output(res, 'SCORES'), shape: [images.length, lines] });
  const boxes = output(res, 'BOXES').data as number[];
  return texts.map((row, i) => row
    .map((t, j) => ({ text: t, score: scores[i]![j]!, box: boxes.slice((i * lines + j) * 4, (i * lines + j + 1) * 4) as OcrLine['box'] }))
    .filter((l) => l.score > 0));
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error('usage: node --import tsx examples/pipelines/ocr-client.ts <image.png|image.jpg> ...');
    process.exit(2);
  }
  const results = await readImages(defaultUrl(), files.map((f) => new Uint8Array(readFileSync(f))));
  files.forEach((f, i) => {
    console.log(f);
    for (const l of results[i]!) console.log(`  ${l.score.toFixed(3)} [${l.box.map((v) => Math.round(v)).join(', ')}] ${l.text}`);
  });
}
