/**
 * The response cache end to end: a real server over copies of the built-in sentiment pipeline
 * (cached whole and in its classifier step), a BLS caller of a cached identity model, and the
 * statistics and metrics a hit and a miss leave.
 */
import assert from 'node:assert/strict';
import { appendFile, cp, mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startMetricsServer } from '../../src/metrics/index.js';
import { setLogSink } from '../../src/logger.js';
import type { InferenceRequest } from '../../src/inference/index.js';
import { createServer, inferOnce, type LocalServer } from '../../src/server/index.js';
import { createTensor, tensorStrings, type Tensor } from '../../src/tensor/index.js';
import { expectError } from '../helpers/expect-error.js';
import { pipelineFile, pipelinesDir } from '../pipelines/pipeline-files.js';

const FIXTURES = new URL('../fixtures/bls/', import.meta.url);
const CACHE_ON = '\nresponse_cache { enable: true }\n';
const logs: string[] = [];
let dir: string;

before(async () => {
  setLogSink((line) => logs.push(line));
  pipelineFile('sentiment_classifier/1/model.onnx');
  dir = await mkdtemp(join(tmpdir(), 'trb-cache-'));
  for (const m of ['sentiment', 'sentiment_tokenize', 'sentiment_classifier', 'sentiment_label']) {
    await cp(join(pipelinesDir, m), join(dir, m), { recursive: true });
  }
  for (const m of ['caller', 'ident']) await cp(new URL(m, FIXTURES), join(dir, m), { recursive: true });
  for (const m of ['sentiment', 'sentiment_classifier', 'ident']) await appendFile(join(dir, m, 'config.pbtxt'), CACHE_ON);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Stats = { inference_count: number; execution_count: number; inference_stats: Record<string, { count: number; ns: number }> };
const stats = (s: LocalServer, model: string) => s.modelStatistics(model).model_stats[0] as unknown as Stats;
const counts = (s: LocalServer, model: string) => {
  const st = stats(s, model);
  return { hit: st.inference_stats.cache_hit!.count, miss: st.inference_stats.cache_miss!.count, success: st.inference_stats.success!.count, inferences: st.inference_count };
};
/**
 * The statistics once `n` requests of `model` are recorded: a batched request is recorded when its
 * batch ends, which may come just after its response.
 */
async function settled(s: LocalServer, model: string, n: number): Promise<ReturnType<typeof counts>> {
  for (let i = 0; i < 200; i++) {
    const c = counts(s, model);
    if (c.success >= n) return c;
    await new Promise((r) => setTimeout(r, 5));
  }
  return counts(s, model);
}
const sentiment = (text: string, extra: Partial<InferenceRequest> = {}): InferenceRequest =>
  ({ model: 'sentiment', inputs: [createTensor('TEXT', 'BYTES', [1, 1], [text])], ...extra });
const plain = (outputs: readonly Tensor[]) => outputs.map((t) => [t.name, t.datatype, t.shape, t.datatype === 'BYTES' ? tensorStrings(t) : [...t.data]]);

function metric(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  assert.ok(line, `missing ${series} in\n${text}`);
  return Number(line.split(' ')[1]);
}

test('a pipeline cached whole and per step: hits, misses, statistics and metrics', async () => {
  const server = await createServer({ modelRepository: dir, responseCache: { kind: 'local', size: 1 << 20 } });
  const metrics = await startMetricsServer(server, { port: 0, host: '127.0.0.1' });
  try {
    const first = await inferOnce(server, sentiment('I love this movie', { id: 'a' }));
    const again = await inferOnce(server, sentiment('I love this movie', { id: 'b' }));
    assert.deepEqual(plain(again.outputs), plain(first.outputs), 'a hit answers what the model answered');
    assert.equal(tensorStrings(first.outputs.find((t) => t.name === 'LABEL')!)[0], 'POSITIVE');
    assert.equal(again.id, 'b', 'the hit carries its own request id');
    assert.deepEqual(await settled(server, 'sentiment', 2), { hit: 1, miss: 1, success: 2, inferences: 1 });
    assert.equal(stats(server, 'sentiment').execution_count, 1, 'the hit ran nothing');
    assert.ok(stats(server, 'sentiment').inference_stats.cache_hit!.ns > 0);
    assert.deepEqual(await settled(server, 'sentiment_classifier', 1), { hit: 0, miss: 1, success: 1, inferences: 1 });

    // Other text, same tokens (the tokenizer is uncased): the pipeline misses, its classifier step hits.
    const upper = await inferOnce(server, sentiment('I LOVE THIS MOVIE'));
    assert.deepEqual(plain(upper.outputs), plain(first.outputs));
    assert.deepEqual(await settled(server, 'sentiment', 3), { hit: 1, miss: 2, success: 3, inferences: 2 });
    assert.deepEqual(await settled(server, 'sentiment_classifier', 2), { hit: 1, miss: 1, success: 2, inferences: 1 });
    assert.equal(counts(server, 'sentiment_tokenize').hit, 0, 'a step without response_cache is never cached');

    // A request parameter or another choice of outputs is another request.
    await inferOnce(server, sentiment('I love this movie', { parameters: { note: 'x' } }));
    const labelOnly = await inferOnce(server, sentiment('I love this movie', { outputs: [{ name: 'LABEL' }] }));
    assert.deepEqual(labelOnly.outputs.map((t) => t.name), ['LABEL']);
    const labelAgain = await inferOnce(server, sentiment('I love this movie', { outputs: [{ name: 'LABEL' }] }));
    assert.deepEqual(labelAgain.outputs.map((t) => t.name), ['LABEL']);
    await inferOnce(server, sentiment('What a terrible film'));
    assert.deepEqual(await settled(server, 'sentiment', 7), { hit: 2, miss: 5, success: 7, inferences: 5 });

    const res = await fetch(`http://127.0.0.1:${metrics.port}/metrics`);
    const text = await res.text();
    const l = '{model="sentiment",version="1"}';
    assert.equal(metric(text, `nv_cache_num_hits_per_model${l}`), 2);
    assert.equal(metric(text, `nv_cache_num_misses_per_model${l}`), 5);
    assert.ok(metric(text, `nv_cache_hit_duration_per_model${l}`) > 0);
    assert.ok(metric(text, `nv_cache_miss_duration_per_model${l}`) > 0);
    assert.equal(metric(text, `nv_inference_request_success${l}`), 7);
    assert.equal(metric(text, `nv_inference_count${l}`), 5, 'cached requests are not inferences');
    // Request parameters reach the steps (as Triton passes them on), so the `note` request missed there too.
    assert.equal(metric(text, 'nv_cache_num_hits_per_model{model="sentiment_classifier",version="1"}'), 2);
    assert.equal(metric(text, 'nv_cache_num_misses_per_model{model="sentiment_classifier",version="1"}'), 3);
  } finally {
    await metrics.close();
    await server.close();
  }
});

test('a BLS call to a cached model hits; the caller itself is not cached', async () => {
  const server = await createServer({ modelRepository: dir, responseCache: { kind: 'local', size: 1 << 20 } });
  try {
    const call = () => inferOnce(server, { model: 'caller', inputs: [createTensor('X', 'FP32', [2], [1, 2])] });
    const a = await call();
    const b = await call();
    assert.deepEqual([...b.outputs[0]!.data], [...a.outputs[0]!.data]);
    assert.deepEqual([...a.outputs[0]!.data], [4, 6]);
    assert.deepEqual(await settled(server, 'ident', 2), { hit: 1, miss: 1, success: 2, inferences: 1 });
    assert.deepEqual(await settled(server, 'caller', 2), { hit: 0, miss: 0, success: 2, inferences: 2 });
  } finally {
    await server.close();
  }
});

test('least recently used out within a small budget', async () => {
  // One 64-float response is charged about 700 bytes: 1000 hold one, never two.
  const server = await createServer({ modelRepository: dir, modelControlMode: 'explicit', loadModels: ['ident'], responseCache: { kind: 'local', size: 1000 } });
  try {
    const call = (v: number) => inferOnce(server, { model: 'ident', inputs: [createTensor('IN', 'FP32', [1, 64], new Array(64).fill(v))] });
    await call(1);
    await call(2);
    await call(1);
    assert.deepEqual(await settled(server, 'ident', 3), { hit: 0, miss: 3, success: 3, inferences: 3 }, 'the second response evicted the first');
    await call(1);
    assert.equal(counts(server, 'ident').hit, 1);
  } finally {
    await server.close();
  }
});

test('without a server cache a model asking for one runs uncached, with one warning at load', async () => {
  logs.length = 0;
  const server = await createServer({ modelRepository: dir, modelControlMode: 'explicit', loadModels: ['ident'] });
  try {
    const warnings = logs.filter((l) => l.includes('response_cache'));
    assert.equal(warnings.length, 1, logs.join('\n'));
    assert.match(warnings[0]!, /model 'ident' enables response_cache, but the server has no cache.*--cache-config local,size=/);
    const call = () => inferOnce(server, { model: 'ident', inputs: [createTensor('IN', 'FP32', [1, 1], [7])] });
    await call();
    await call();
    assert.deepEqual(await settled(server, 'ident', 2), { hit: 0, miss: 0, success: 2, inferences: 2 });
  } finally {
    await server.close();
  }
});

test('a decoupled model with response_cache is refused at load', async () => {
  const repo = await mkdtemp(join(tmpdir(), 'trb-cache-dec-'));
  try {
    await mkdir(join(repo, 'dec', '1'), { recursive: true });
    await writeFile(join(repo, 'dec', 'config.pbtxt'), `name: "dec"
backend: "identity"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]
model_transaction_policy { decoupled: true }
response_cache { enable: true }
`);
    const server = await createServer({ modelRepository: repo, modelControlMode: 'explicit', responseCache: { kind: 'local', size: 1 << 20 } });
    try {
      const err = await expectError(server.loadModel('dec'));
      assert.match(err.message, /Response Cache does not currently support model '?[a-z_]+'? with 'decoupled' transaction policy\. Please disable the response cache\./);
    } finally {
      await server.close();
    }
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
});
