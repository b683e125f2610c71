// The control-flow pipelines of pipelines/ end to end over HTTP: text_routed (switch + return, no
// script) and ocr_mapped (a map over a batch's images, and one over each image's line crops). It and
// the `ocr` orchestrator must answer as the single-script orchestrator did on the same images
// (ocr-expected.json, recorded from it by scripts/write-ocr-expected.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { infer, type V2Output } from '../../examples/pipelines/v2-fetch.js';
import { modelStats, servePipelines, type Served } from './serve-pipelines.js';
import { renderText } from './render-text.js';
import { ocrImages } from './ocr-images.js';

let served: Served;
before(async () => {
  served = await servePipelines({
    modelControlMode: 'explicit',
    loadModels: ['text_routed', 'ocr', 'ocr_mapped'],
  });
});
after(async () => { await served?.close(); });

const route = async (text: string) => {
  const res = await infer(served.url, 'text_routed', [{ name: 'TEXT', datatype: 'BYTES', shape: [1, 1], data: [text] }]);
  return Object.fromEntries(res.outputs.map((o) => [o.name, o]));
};

test('text_routed: an English text gets its sentiment, with the language it was routed by', async () => {
  const pos = await route('I absolutely love this film, the acting is wonderful and the story is brilliant.');
  assert.deepEqual(pos.LANGUAGE!.data[0], 'eng');
  assert.deepEqual(pos.LABEL!.data, ['POSITIVE']);
  assert.deepEqual(pos.LABEL!.shape, [1, 1]);
  assert.ok((pos.SCORE!.data[0] as number) > 0.9);
  const neg = await route('This was a terrible experience, the staff were rude and the room was dirty and awful.');
  assert.deepEqual(neg.LABEL!.data, ['NEGATIVE']);
});

test('text_routed: German and French texts answer "unsupported language" and carry no SCORE', async () => {
  for (const [lang, text] of [
    ['deu', 'Die Kinder spielten im Garten, während ihre Eltern das Abendessen vorbereiteten.'],
    ['fra', 'Les enfants jouaient dans le jardin pendant que leurs parents préparaient le dîner.'],
  ]) {
    const out = await route(text!);
    assert.equal(out.LANGUAGE!.data[0], lang);
    assert.deepEqual(out.LABEL!.data, ['unsupported language']);
    assert.deepEqual(out.LABEL!.shape, [1, 1]);
    assert.equal(out.SCORE, undefined, 'SCORE is optional and left out on the default branch');
  }
});

interface BranchStat { switch: string; case: string; condition: string; taken: number; skipped: number }

async function branches(model: string): Promise<BranchStat[]> {
  const res = await fetch(`${served.url}/v2/models/${model}/stats`);
  const body = await res.json() as { model_stats: { branch_stats?: BranchStat[] }[] };
  return body.model_stats[0]!.branch_stats ?? [];
}

test('text_routed: the sentiment steps ran only for the English text; the statistics count each branch', async () => {
  const before = (await modelStats(served.url, 'sentiment_label')).inference_count;
  const [case0, other] = await branches('text_routed');
  await route('What a great day, I am so happy and grateful.');
  await route('Los niños jugaban en el jardín mientras sus padres preparaban la cena.');
  await route('Questo è un libro molto interessante.');
  assert.equal((await modelStats(served.url, 'sentiment_label')).inference_count, before + 1);
  const after = await branches('text_routed');
  assert.deepEqual(after.map((b) => [b.switch, b.case, b.condition]), [['english', '0', "top1(probabilities) == 'eng'"], ['english', 'default', '']]);
  assert.deepEqual([after[0]!.taken - case0!.taken, after[0]!.skipped - case0!.skipped], [1, 2]);
  assert.deepEqual([after[1]!.taken - other!.taken, after[1]!.skipped - other!.skipped], [2, 1]);
});

test('text_routed: the step whose answer triggers the return is counted, with its version; the other branch skipped', async () => {
  const stepStats = async () => {
    const res = await fetch(`${served.url}/v2/models/text_routed/stats`);
    const body = await res.json() as { model_stats: { step_stats: { step: string; version: string; count: number; skipped?: number; cancelled?: number }[] }[] };
    return new Map(body.model_stats[0]!.step_stats.map((s) => [s.step, s]));
  };
  const before = await stepStats();
  await route('What a great day, I am so happy and grateful.');
  await route('I absolutely love this film, the acting is wonderful.');
  const after = await stepStats();
  const delta = (step: string, key: 'count' | 'skipped' | 'cancelled') => (after.get(step)![key] ?? 0) - (before.get(step)![key] ?? 0);
  for (const step of ['langid_featurize', 'langid_mlp', 'langid_topk', 'sentiment_tokenize', 'sentiment_classifier', 'sentiment_label']) {
    assert.equal(delta(step, 'count'), 2, `${step} ran twice`);
    assert.equal(delta(step, 'cancelled'), 0, step);
  }
  assert.equal(after.get('sentiment_label')!.version, '1');
  assert.equal(delta('return#1', 'count'), 2);
  assert.equal(delta('return#2', 'skipped'), 2, 'the default branch\'s return');
});

type Expected = { shape: number[]; data: (string | number)[] };
const expected = JSON.parse(readFileSync(new URL('./ocr-expected.json', import.meta.url), 'utf8')) as { cases: Record<string, Record<string, Expected>> };

for (const model of ['ocr_mapped', 'ocr']) test(`${model} answers as the single-script orchestrator did on the OCR tests' images`, async () => {
  const cases = ocrImages();
  assert.deepEqual(cases.map(([what]) => what), Object.keys(expected.cases), 'ocr-expected.json holds every case');
  for (const [what, bytes] of cases) {
    const res = await infer(served.url, model, [{ name: 'IMAGE', datatype: 'BYTES', shape: [bytes.length, 1], bytes }]);
    const got: Record<string, V2Output> = Object.fromEntries(res.outputs.map((o) => [o.name, o]));
    const want = expected.cases[what]!;
    assert.deepEqual(Object.keys(got).sort(), ['BOXES', 'SCORES', 'TEXT'], what);
    for (const name of ['TEXT', 'BOXES', 'SCORES']) assert.deepEqual(got[name]!.shape, want[name]!.shape, `${what}: ${name} shape`);
    assert.deepEqual(got.TEXT!.data, want.TEXT!.data, what);
    assert.deepEqual(got.BOXES!.data, want.BOXES!.data, what);
    // ocr_rec may batch the crops differently (k calls merged by its batcher, or one call of k crops)
    got.SCORES!.data.forEach((s, i) => assert.ok(Math.abs((s as number) - (want.SCORES!.data[i] as number)) < 1e-5, `${what}: score ${i}`));
  }
});

test('ocr_mapped: its statistics count the images and the crops its maps ran', async () => {
  const stepStats = async () => {
    const res = await fetch(`${served.url}/v2/models/ocr_mapped/stats`);
    const body = await res.json() as { model_stats: { step_stats: { step: string; model: string; count: number; items?: number }[] }[] };
    return body.model_stats[0]!.step_stats;
  };
  const before = await stepStats();
  const bytes = [renderText(['Hello']), renderText(['first line', 'second line', 'third line'])];
  await infer(served.url, 'ocr_mapped', [{ name: 'IMAGE', datatype: 'BYTES', shape: [2, 1], bytes }]);
  const after = await stepStats();
  const items = (stats: typeof before) => stats.filter((s) => s.items !== undefined).map((s) => s.items!);
  const delta = items(after).map((n, i) => n - (items(before)[i] ?? 0));
  assert.deepEqual(delta, [2, 4], 'the map over images ran 2 items, the map over crops 1 + 3');
});

test('ocr_image: a call with neither IMAGE nor PIXELS and PROBABILITY_MAP is a 400 saying what to send', async () => {
  await assert.rejects(
    infer(served.url, 'ocr_image', [{ name: 'PIXELS', datatype: 'UINT8', shape: [1, 1, 4], data: [0, 0, 0, 255] }]),
    (e: Error & { status?: number }) => e.status === 400 && /send either IMAGE, or PIXELS and PROBABILITY_MAP/.test(e.message),
  );
});
