// The built-in pipelines end to end: real server, real HTTP, real models (onnxruntime, isolated-vm),
// through the example clients in examples/pipelines/ (so the examples are exercised too).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import lande from 'lande';
import { identifyLanguages } from '../../examples/pipelines/langid-client.js';
import { classifySentiment } from '../../examples/pipelines/sentiment-client.js';
import { readImages } from '../../examples/pipelines/ocr-client.js';
import { infer, V2Error } from '../../examples/pipelines/v2-fetch.js';
import { modelStats, servePipelines, type Served } from './serve-pipelines.js';
import { renderText } from './render-text.js';

let served: Served;
before(async () => { served = await servePipelines(); });
after(async () => { await served?.close(); });

const squash = (s: string) => s.replace(/\s+/g, '').toLowerCase();

const sentences: [string, string][] = [
  ['eng', 'The children were playing in the garden while their parents prepared dinner.'],
  ['deu', 'Die Kinder spielten im Garten, während ihre Eltern das Abendessen vorbereiteten.'],
  ['fra', 'Les enfants jouaient dans le jardin pendant que leurs parents préparaient le dîner.'],
  ['spa', 'Los niños jugaban en el jardín mientras sus padres preparaban la cena.'],
  ['rus', 'Я очень люблю читать книги по вечерам.'],
  ['jpn', '子供たちは両親が夕食を準備している間、庭で遊んでいました。'],
];

test('langid: six languages in one batch, top 3 by default, probabilities equal lande\'s', async () => {
  const guesses = await identifyLanguages(served.url, sentences.map(([, s]) => s));
  sentences.forEach(([lang, text], i) => {
    const g = guesses[i]!;
    assert.equal(g.length, 3);
    assert.equal(g[0]!.language, lang, text);
    assert.ok(g[0]!.probability >= g[1]!.probability && g[1]!.probability >= g[2]!.probability);
    const expected = lande(text).slice(0, 3);
    g.forEach((x, j) => {
      assert.equal(x.language, expected[j]![0]);
      assert.ok(Math.abs(x.probability - expected[j]![1]) < 1e-5, `${lang}: ${x.probability} vs ${expected[j]![1]}`);
    });
  });
});

test('langid: the top_k request parameter sets k; a bad top_k is a 400 naming it', async () => {
  const [one] = await identifyLanguages(served.url, ['Guten Morgen, wie geht es dir heute?'], 1);
  assert.deepEqual(one!.map((g) => g.language), ['deu']);
  const [five] = await identifyLanguages(served.url, ['Guten Morgen, wie geht es dir heute?'], 5);
  assert.equal(five!.length, 5);
  await assert.rejects(identifyLanguages(served.url, ['hello'], 0), (e: V2Error) => e.status === 400 && /top_k/.test(e.message));
});

test('sentiment: clearly positive and negative sentences get the right label', async () => {
  const texts = [
    'I absolutely love this film, the acting is wonderful and the story is brilliant.',
    'This was a terrible experience, the staff were rude and the room was dirty and awful.',
    'What a great day, I am so happy and grateful.',
    'I hate waiting, this delay is stupid and annoying.',
  ];
  const results = await classifySentiment(served.url, texts);
  assert.deepEqual(results.map((r) => r.label), ['POSITIVE', 'NEGATIVE', 'POSITIVE', 'NEGATIVE']);
  for (const r of results) assert.ok(r.score > 0.9 && r.score <= 1, `score ${r.score}`);
});

test('ocr: reads two rendered lines top to bottom from PNG, and the same from JPEG', async () => {
  for (const format of ['png', 'jpeg'] as const) {
    const [lines] = await readImages(served.url, [renderText(['ONNX inference', 'Tributary 2024'], { format })]);
    assert.ok(lines);
    assert.deepEqual(lines.map((l) => l.text), ['ONNX inference', 'Tributary 2024'], format);
    assert.ok(lines[0]!.box[3] <= lines[1]!.box[1] + 5, 'first line above the second');
    for (const l of lines) assert.ok(l.box[0] >= 0 && l.box[2] <= 640 && l.score > 0.8);
  }
});

test('ocr: the README\'s sample image (examples/pipelines/sample-text.png) reads as its two lines', async () => {
  const [lines] = await readImages(served.url, [readFileSync(new URL('../../examples/pipelines/sample-text.png', import.meta.url))]);
  assert.deepEqual(lines?.map((l) => l.text), ['Hello from Tributary', 'Read me 2026']);
});

test('ocr: a batch of images with different line counts is padded per row', async () => {
  const results = await readImages(served.url, [renderText(['Hello']), renderText(['first line', 'second line', 'third line'])]);
  assert.deepEqual(results.map((r) => r.map((l) => squash(l.text))), [['hello'], ['firstline', 'secondline', 'thirdline']]);
});

test('ocr: bytes that are not an image are a 400 naming the input', async () => {
  await assert.rejects(
    infer(served.url, 'ocr', [{ name: 'IMAGE', datatype: 'BYTES', shape: [1, 1], bytes: [new TextEncoder().encode('not an image')] }]),
    (e: V2Error) => e.status === 400 && /IMAGE/.test(e.message) && /neither PNG nor JPEG/.test(e.message),
  );
});

test('statistics: each step of each pipeline counted its work', async () => {
  for (const m of ['langid', 'langid_featurize', 'langid_mlp', 'langid_topk', 'sentiment', 'sentiment_tokenize', 'sentiment_classifier', 'sentiment_label', 'ocr', 'ocr_image', 'ocr_det', 'ocr_rec', 'ocr_ctc', 'ocr_rows']) {
    const s = await modelStats(served.url, m);
    assert.ok(s.inference_count > 0 && s.inference_stats.success!.count > 0, `${m}: ${JSON.stringify(s)}`);
  }
});
