/**
 * The scrape-time and BLS families on a real server (a pipeline, a BLS script, a cached model),
 * and the Grafana dashboard checked against what that server exports, so the two cannot drift.
 */
import assert from 'node:assert/strict';
import { appendFile, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startMetricsServer } from '../../src/metrics/index.js';
import { createServer, inferOnce, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { pipelineFile, pipelinesDir, repoRoot } from '../pipelines/pipeline-files.js';

let dir: string;
let server: LocalServer;
let metrics: Awaited<ReturnType<typeof startMetricsServer>>;
let text: string;

before(async () => {
  pipelineFile('sentiment_classifier/1/model.onnx');
  dir = await mkdtemp(join(tmpdir(), 'trb-metrics-'));
  for (const m of ['sentiment', 'sentiment_tokenize', 'sentiment_classifier', 'sentiment_label']) {
    await cp(join(pipelinesDir, m), join(dir, m), { recursive: true });
  }
  await cp(join(repoRoot, 'examples/guide/mood'), join(dir, 'mood'), { recursive: true });
  await appendFile(join(dir, 'sentiment', 'config.pbtxt'), '\nresponse_cache { enable: true }\n');
  server = await createServer({ modelRepository: dir, responseCache: { kind: 'local', size: 1 << 20 } });
  metrics = await startMetricsServer(server, {
    port: 0, host: '127.0.0.1', config: { summary_latencies: 'true', histogram_latencies: 'true' },
  });
  const text1 = () => [createTensor('TEXT', 'BYTES', [1, 1], ['what a lovely day'])];
  await inferOnce(server, { model: 'sentiment', inputs: text1() });
  await inferOnce(server, { model: 'sentiment', inputs: text1() }); // a cache hit
  await inferOnce(server, { model: 'mood', inputs: [createTensor('TEXT', 'BYTES', [1], ['what a lovely day'])] });
  text = await (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();
});

after(async () => {
  await metrics?.close();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Value of the one sample whose name is `name` and whose labels include every one of `labels`. */
function sample(name: string, labels: Record<string, string>): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const lines = text.split('\n').filter((l) => l.startsWith(`${name}{`) && want.every((w) => l.includes(w)));
  assert.equal(lines.length, 1, `one ${name} sample with ${want.join(',')} in\n${text}`);
  return Number(lines[0]!.split(' ').at(-1));
}

test('model load time, as Triton\'s nv_model_load_duration_secs', () => {
  const secs = sample('nv_model_load_duration_secs', { model: 'sentiment_classifier', version: '1' });
  assert.ok(secs > 0 && secs < 120, `load time ${secs}`);
  assert.equal(secs, server.modelLoadMs('sentiment_classifier', '1')! / 1000);
});

test('per-step counts and times of a pipeline, labelled by step and its model', () => {
  // The second request was a hit of the whole pipeline: its steps did not run again.
  for (const step of ['sentiment_tokenize', 'sentiment_classifier', 'sentiment_label']) {
    assert.equal(sample('tributary_pipeline_step_success', { model: 'sentiment', step_model: step }), 1, step);
    assert.equal(sample('tributary_pipeline_step_failure', { model: 'sentiment', step_model: step }), 0, step);
    assert.ok(sample('tributary_pipeline_step_duration_us', { model: 'sentiment', step_model: step }) > 0, step);
  }
  const steps = server.modelStatistics('sentiment').model_stats[0]!.step_stats!;
  const us = steps.find((s) => s.model === 'sentiment_classifier')!.ns / 1000;
  assert.equal(sample('tributary_pipeline_step_duration_us', { model: 'sentiment', step: steps[1]!.step }), us);
});

test('BLS child calls per caller and callee', () => {
  for (const callee of ['sentiment_tokenize', 'sentiment_classifier']) {
    assert.equal(sample('tributary_bls_call_success', { caller: 'mood', callee }), 1, callee);
    assert.ok(sample('tributary_bls_call_duration_us', { caller: 'mood', callee }) > 0, callee);
  }
  assert.ok(!text.includes('tributary_bls_call_failure{'), 'no failed call was made');
});

test('every metric the Grafana dashboard queries is exported', async () => {
  const dashboard = JSON.parse(await readFile(join(repoRoot, 'deploy/grafana/tributary-dashboard.json'), 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  // Sample names (with _bucket, _sum, _count) and families declared without a sample yet (no failure so far).
  const exported = new Set([...text.matchAll(/^(?:# TYPE )?([a-z_:][a-z0-9_:]*)(?:\{| )/gm)].map((m) => m[1]!));
  const queried = dashboard.panels.flatMap((p) => (p.targets ?? []).flatMap((t) => [...t.expr.matchAll(/\b(?:nv|tributary)_[a-z0-9_]+/g)].map((m) => [p.title, m[0]] as const)));
  assert.ok(queried.length >= 20, `the dashboard queries ${queried.length} metrics`);
  const missing = queried.filter(([, name]) => !exported.has(name));
  assert.deepEqual(missing, [], 'dashboard queries of names the server does not export');
  for (const phase of ['queue', 'compute_input', 'compute_infer', 'compute_output']) {
    assert.ok(queried.some(([, n]) => n === `nv_inference_${phase}_duration_us`), `the dashboard shows ${phase}`);
  }
});
