/**
 * DB post-processing: probability map -> text line boxes in image pixels. Threshold the map,
 * label 8-connected components, keep each component's bounding box when it is large enough and
 * its mean probability reaches `boxThreshold`, then grow it back ("unclip": DB shrinks text
 * regions by distance area*ratio/perimeter during training, so the same distance is added back).
 * Boxes are axis-aligned: enough for horizontal text; rotated text would need minimum-area
 * rectangles and a perspective crop.
 */

export interface TextBox { x0: number; y0: number; x1: number; y1: number; score: number }

export interface FindBoxesOptions {
  threshold: number;
  boxThreshold: number;
  unclipRatio: number;
  minSize: number;
  maxBoxes: number;
}

export const DB_DEFAULTS: FindBoxesOptions = { threshold: 0.3, boxThreshold: 0.6, unclipRatio: 1.5, minSize: 3, maxBoxes: 1000 };

/**
 * `prob` is the [mapH, mapW] map for one image; boxes are scaled to an image of
 * `imageWidth` x `imageHeight` and clamped to it.
 */
export function findBoxes(prob: Float32Array, mapW: number, mapH: number, imageWidth: number, imageHeight: number,
  opts: FindBoxesOptions = DB_DEFAULTS): TextBox[] {
  // Every index below is < mapW * mapH, the element count of prob (a [mapH, mapW] map).
  const labels = new Int32Array(mapW * mapH);
  const stack = new Int32Array(mapW * mapH);
  const boxes: TextBox[] = [];
  const sx = imageWidth / mapW, sy = imageHeight / mapH;
  let next = 0;
  for (let start = 0; start < prob.length; start++) {
    if (labels[start] !== 0 || prob[start]! <= opts.threshold) continue;
    next++;
    let minX = mapW, minY = mapH, maxX = -1, maxY = -1, top = 0;
    stack[top++] = start;
    labels[start] = next;
    while (top > 0) {
      const p = stack[--top]!;
      const x = p % mapW, y = (p - x) / mapW;
      if (x < minX) minX = x; if (x > maxX) maxX = x;
      if (y < minY) minY = y; if (y > maxY) maxY = y;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= mapH) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= mapW) continue;
          const q = ny * mapW + nx;
          if (labels[q] === 0 && prob[q]! > opts.threshold) { labels[q] = next; stack[top++] = q; }
        }
      }
    }
    const w = maxX - minX + 1, h = maxY - minY + 1;
    if (Math.min(w, h) < opts.minSize) continue;
    const score = meanInRect(prob, mapW, minX, minY, maxX, maxY);
    if (score < opts.boxThreshold) continue;
    const d = (w * h * opts.unclipRatio) / (2 * (w + h));
    if (Math.min(w, h) + 2 * d < opts.minSize + 2) continue;
    boxes.push({
      x0: clamp((minX - d) * sx, imageWidth), y0: clamp((minY - d) * sy, imageHeight),
      x1: clamp((maxX + 1 + d) * sx, imageWidth), y1: clamp((maxY + 1 + d) * sy, imageHeight),
      score,
    });
    if (boxes.length >= opts.maxBoxes) break;
  }
  return sortReadingOrder(boxes);
}

function meanInRect(prob: Float32Array, w: number, x0: number, y0: number, x1: number, y1: number): number {
  let sum = 0;
  for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) sum += prob[y * w + x]!;
  return sum / ((x1 - x0 + 1) * (y1 - y0 + 1));
}

const clamp = (v: number, max: number) => Math.min(Math.max(v, 0), max);

/** Top to bottom; boxes whose tops are within half a line height read left to right. */
export function sortReadingOrder(boxes: TextBox[]): TextBox[] {
  const sorted = [...boxes].sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  for (let i = 1; i < sorted.length; i++) {
    for (let j = i; j > 0; j--) {
      const a = sorted[j - 1]!, b = sorted[j]!;
      const sameLine = Math.abs(b.y0 - a.y0) < Math.min(a.y1 - a.y0, b.y1 - b.y0) / 2;
      if (sameLine && b.x0 < a.x0) { sorted[j - 1] = b; sorted[j] = a; } else break;
    }
  }
  return sorted;
}
