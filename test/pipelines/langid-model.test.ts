// The converted lande network (ONNX, through onnxruntime) and our featurizer must reproduce lande's
// own JavaScript output; this ties the langid pipeline's numbers to the published model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ort from 'onnxruntime-node';
import lande from 'lande';
import { featureCount, featurize, normalizeText, type NgramLists } from '../../pipelines/langid_featurize/1/featurize.js';
import { topK } from '../../pipelines/langid_topk/1/top-k.js';
import { pipelineFile } from './pipeline-files.js';

const ngrams: NgramLists = JSON.parse(readFileSync(pipelineFile('langid_featurize/1/ngrams.json'), 'utf8'));
const languages: string[] = JSON.parse(readFileSync(pipelineFile('langid_topk/1/languages.json'), 'utf8'));

const sentences = [
  'The quick brown fox jumps over the lazy dog near the river bank.',
  'Der schnelle braune Fuchs springt über den faulen Hund.',
  'Le renard brun rapide saute par-dessus le chien paresseux.',
  'El rápido zorro marrón salta sobre el perro perezoso.',
  'Быстрая коричневая лиса прыгает через ленивую собаку.',
  '素早い茶色の狐がのろまな犬を飛び越える。',
  'Nopea ruskea kettu hyppää laiskan koiran yli.',
  '  123 !!! -- ',
  '',
];

test('normalisation matches lande: hyphens, punctuation, digits, case, padding', () => {
  assert.equal(normalizeText('  Hello-World, 42 TIMES!  '), ' hello world times ');
  assert.equal(normalizeText(''), '  ');
});

test('featurizer + ONNX MLP reproduce lande probabilities to 1e-5', async () => {
  const session = await ort.InferenceSession.create(pipelineFile('langid_mlp/1/model.onnx'));
  const width = featureCount(ngrams);
  assert.equal(width, 620);
  const features = new Float32Array(sentences.length * width);
  sentences.forEach((s, i) => featurize(s, ngrams, features, i * width));
  const { PROBABILITIES } = await session.run({ FEATURES: new ort.Tensor('float32', features, [sentences.length, width]) });
  assert.ok(PROBABILITIES);
  assert.deepEqual(PROBABILITIES.dims, [sentences.length, 50]);
  const probs = PROBABILITIES.data as Float32Array;
  let worst = 0;
  sentences.forEach((s, i) => {
    const expected = new Map<string, number>(lande(s));
    languages.forEach((lang, j) => {
      worst = Math.max(worst, Math.abs(probs[i * 50 + j]! - expected.get(lang)!));
    });
    const row = probs.subarray(i * 50, (i + 1) * 50);
    assert.equal(languages[topK(row, 1)[0]!], lande(s)[0]![0], `best language of ${JSON.stringify(s)}`);
  });
  assert.ok(worst < 1e-5, `max abs difference ${worst}`);
  await session.release();
});
