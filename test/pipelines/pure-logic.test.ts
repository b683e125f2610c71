// Small pure modules of the pipelines: top-k, the top_k parameter, CTC decoding, box finding, n-gram features.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTopK, topK } from '../../pipelines/langid_topk/1/top-k.js';
import { ctcCharset, ctcGreedyDecode } from '../../pipelines/ocr_ctc/1/ctc-decode.js';
import { findBoxes, sortReadingOrder, DB_DEFAULTS } from '../../pipelines/ocr_image/1/find-boxes.js';
import { detInputSize } from '../../pipelines/ocr_image/1/det-input.js';
import { featureCount, featurize, normalizeText, type NgramLists } from '../../pipelines/langid_featurize/1/featurize.js';

test('topK: best first, ties by index, k clamped', () => {
  assert.deepEqual(topK([0.1, 0.5, 0.2, 0.5], 3), [1, 3, 2]);
  assert.deepEqual(topK([0.1, 0.2], 10), [1, 0]);
  assert.deepEqual(topK([0.1, 0.2], 0), [1]);
});

test('parseTopK: default, numbers, numeric strings; errors name the parameter', () => {
  assert.equal(parseTopK(undefined, 3, 50), 3);
  assert.equal(parseTopK(5, 3, 50), 5);
  assert.equal(parseTopK('7', 3, 50), 7);
  assert.match(String(parseTopK(0, 3, 50)), /'top_k' must be an integer from 1 to 50, got 0/);
  assert.match(String(parseTopK('x', 3, 50)), /got "x"/);
  assert.match(String(parseTopK(51, 3, 50)), /got 51/);
});

test('CTC greedy decode merges repeats, drops blanks, keeps a repeat split by a blank', () => {
  const charset = ctcCharset('a\nb\n');
  assert.deepEqual(charset, ['', 'a', 'b', ' ']);
  const steps = [1, 1, 0, 1, 2, 2, 3, 0]; // a a _ a b b ' ' _
  const probs = new Float32Array(steps.length * 4);
  steps.forEach((c, t) => { probs.fill(0.1, t * 4, t * 4 + 4); probs[t * 4 + c] = 0.7; });
  const d = ctcGreedyDecode(probs, 0, steps.length, 4, charset);
  assert.equal(d.text, 'aab ');
  assert.ok(Math.abs(d.score - 0.7) < 1e-6);
  assert.throws(() => ctcGreedyDecode(probs, 0, 2, 5, charset), /dictionary gives 4 classes but the model outputs 5/);
});

test('findBoxes: two blobs become two unclipped boxes, scaled to the image, top to bottom', () => {
  const w = 40, h = 20;
  const map = new Float32Array(w * h);
  const fill = (x0: number, y0: number, x1: number, y1: number, v: number) => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) map[y * w + x] = v;
  };
  fill(5, 12, 30, 16, 0.9);  // lower line
  fill(5, 2, 25, 6, 0.95);   // upper line
  fill(35, 2, 37, 4, 0.9);   // too small (2 px)
  fill(10, 8, 30, 10, 0.35); // above threshold but mean score under 0.6
  const boxes = findBoxes(map, w, h, w * 2, h * 2, DB_DEFAULTS);
  assert.equal(boxes.length, 2);
  const d = (20 * 4 * 1.5) / (2 * 24);
  assert.ok(Math.abs(boxes[0]!.x0 - (5 - d) * 2) < 1e-9);
  assert.equal(boxes[0]!.y0, 0, 'unclipped past the top edge, clamped to the image');
  assert.ok(Math.abs(boxes[0]!.x1 - (25 + d) * 2) < 1e-9);
  assert.ok(boxes[1]!.y0 > boxes[0]!.y0);
  assert.ok(Math.abs(boxes[0]!.score - 0.95) < 1e-6);
});

test('reading order: same line left to right, then the next line', () => {
  const b = (x0: number, y0: number) => ({ x0, y0, x1: x0 + 10, y1: y0 + 10, score: 1 });
  assert.deepEqual(sortReadingOrder([b(50, 2), b(0, 30), b(0, 0)]).map((x) => [x.x0, x.y0]), [[0, 0], [50, 2], [0, 30]]);
});

test('detection input size: long side at most 960, multiples of 32, at least 32', () => {
  assert.deepEqual(detInputSize(640, 200), { width: 640, height: 192 });
  assert.deepEqual(detInputSize(4000, 1000), { width: 960, height: 256 });
  assert.deepEqual(detInputSize(10, 10), { width: 32, height: 32 });
});

test('featurize: the frequency of each listed n-gram among all n-grams of its length, duplicates and short texts included', () => {
  const lists: NgramLists = { unigrams: ['a', ' ', 'a', 'z'], bigrams: ['ab', ' a'], trigrams: ['abc'], quadgrams: ['abca'] };
  // Straight from the definition, over the normalised text ' abcab '.
  const reference = (text: string) => {
    const norm = normalizeText(text);
    const freq = (gram: string) => {
      const total = norm.length - gram.length + 1;
      let count = 0;
      for (let i = 0; i < total; i++) if (norm.slice(i, i + gram.length) === gram) count++;
      return total > 0 ? count / total : 0;
    };
    return Float32Array.from([...lists.unigrams, ...lists.bigrams, ...lists.trigrams, ...lists.quadgrams].map(freq));
  };
  const width = featureCount(lists);
  for (const text of ['abcab', 'ABC-ab!', '', 'a']) {
    const out = new Float32Array(width * 2).fill(5);
    featurize(text, lists, out, width);
    assert.deepEqual(out.subarray(width), reference(text), text);
    assert.deepEqual(out.subarray(0, width), new Float32Array(width).fill(5), 'writes only its own slice');
  }
  const out = new Float32Array(width);
  featurize('abcab', lists, out);
  assert.equal(out[0], Math.fround(2 / 7)); // 'a' twice among 7 unigrams of ' abcab '
  assert.equal(out[2], out[0]); // listed twice, same frequency
});
