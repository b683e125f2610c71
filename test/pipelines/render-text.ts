// Renders lines of text into an encoded PNG or JPEG with @napi-rs/canvas, for OCR tests.
import { createCanvas } from '@napi-rs/canvas';

export interface RenderOptions { width?: number; lineHeight?: number; fontSize?: number; format?: 'png' | 'jpeg'; transparent?: boolean }

export function renderText(lines: string[], opts: RenderOptions = {}): Uint8Array {
  const fontSize = opts.fontSize ?? 40;
  const lineHeight = opts.lineHeight ?? fontSize * 2;
  const canvas = createCanvas(opts.width ?? 640, lineHeight * lines.length + fontSize);
  const ctx = canvas.getContext('2d');
  if (!opts.transparent) {
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
  }
  ctx.fillStyle = '#000000';
  ctx.font = `${fontSize}px sans-serif`;
  ctx.textBaseline = 'middle';
  lines.forEach((line, i) => ctx.fillText(line, 30, fontSize / 2 + lineHeight * (i + 0.5)));
  return new Uint8Array(opts.format === 'jpeg' ? canvas.toBuffer('image/jpeg', 92) : canvas.toBuffer('image/png'));
}
