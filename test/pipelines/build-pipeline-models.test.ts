// Generated-file bookkeeping (skip when up to date, rebuild when an output is missing or altered,
// name the fix when a source is missing), and the error a model gives when its file was not built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBuildSteps, type BuildStep } from '../../scripts/pipelines/build-step.js';
import { pipelineSteps } from '../../scripts/build-pipeline-models.js';
import { createServer } from '../../src/server/index.js';
import { pipelinesDir } from './pipeline-files.js';
import { quietLog } from '../helpers/quiet-log.js';

// langid_topk loads without its generated file on purpose.
quietLog([/load failed for model 'langid_topk': .*languages\.json is missing/]);

function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'trb-build-'));
  const source = join(dir, 'source.txt');
  writeFileSync(source, 'v1');
  let builds = 0;
  const step: BuildStep = {
    name: 'upper', sources: [source], code: [],
    async build() { builds++; return new Map([[join(dir, 'out', 'upper.txt'), readFileSync(source, 'utf8').toUpperCase()]]); },
  };
  return { dir, source, step, stamp: join(dir, 'stamps.json'), builds: () => builds };
}

test('a step builds once, is skipped while up to date, and rebuilds a damaged output', async () => {
  const f = fixture();
  try {
    assert.equal((await runBuildSteps([f.step], f.stamp))[0]!.status, 'built');
    assert.equal((await runBuildSteps([f.step], f.stamp))[0]!.status, 'up-to-date');
    const out = join(f.dir, 'out', 'upper.txt');
    writeFileSync(out, 'V');                       // truncated / edited by hand
    assert.equal((await runBuildSteps([f.step], f.stamp))[0]!.status, 'built');
    assert.equal(readFileSync(out, 'utf8'), 'V1');
    rmSync(out);
    assert.equal((await runBuildSteps([f.step], f.stamp))[0]!.status, 'built');
    writeFileSync(f.source, 'version 2');          // a newer package asset
    assert.equal((await runBuildSteps([f.step], f.stamp))[0]!.status, 'built');
    assert.equal(readFileSync(out, 'utf8'), 'VERSION 2');
    assert.equal(f.builds(), 4);
    rmSync(f.source);
    await assert.rejects(runBuildSteps([f.step], f.stamp), /step 'upper': source .*source.txt is missing \(is node_modules installed\? run: npm install\)/);
  } finally { rmSync(f.dir, { recursive: true, force: true }); }
});

test('the pipeline build writes every file the pipelines read', () => {
  const declared = ['langid_mlp/1/model.onnx', 'langid_mlp/languages.txt', 'langid_featurize/1/ngrams.json', 'langid_topk/1/languages.json',
    'sentiment_tokenize/1/tokenizer.json', 'sentiment_classifier/1/model.onnx', 'ocr_det/1/model.onnx', 'ocr_rec/1/model.onnx', 'ocr_ctc/1/ppocr_keys_v1.txt'];
  for (const rel of declared) assert.ok(existsSync(join(pipelinesDir, rel)), `${rel} (run: npm run build-models)`);
  assert.deepEqual(pipelineSteps.map((s) => s.name), ['langid', 'sentiment', 'ocr']);
});

test('a script model whose generated file is missing is unavailable with the rebuild command', async () => {
  const repo = mkdtempSync(join(tmpdir(), 'trb-missing-'));
  try {
    cpSync(join(pipelinesDir, 'langid_topk'), join(repo, 'langid_topk'), { recursive: true });
    rmSync(join(repo, 'langid_topk', '1', 'languages.json'));
    const server = await createServer({ modelRepository: repo });
    try {
      const [entry] = await server.repositoryIndex();
      assert.ok(entry);
      assert.equal(entry.state, 'UNAVAILABLE');
      assert.match(entry.reason ?? '', /1\/languages\.json is missing; build the pipeline files with: npm run build-models/);
    } finally { await server.close(); }
  } finally { rmSync(repo, { recursive: true, force: true }); }
});
