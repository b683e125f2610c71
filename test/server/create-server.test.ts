import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer, inferOnce, type Server } from '../../src/server/index.js';
import { createTensor, type Tensor } from '../../src/tensor/index.js';
import { mlpForward, mlpWeights } from '../../scripts/onnx/index.js';
import { expectError } from '../helpers/expect-error.js';
import { CHAIN_CONFIG, ECHO_CONFIG, int32s, simpleConfig } from '../helpers/model-configs.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { quietLog } from '../helpers/quiet-log.js';

// 'broken' fails to load on purpose, and the example 'chain' pipeline leaves OUTPUT1 unused.
quietLog([/load failed for model 'broken'/, /chain\/config\.pbtxt:\d+:\d+: warning: .* is never used/]);


let repo: TempRepo;
let server: Server;

before(async () => {
  repo = tempRepo({
    'simple/config.pbtxt': simpleConfig(),
    'echo/config.pbtxt': ECHO_CONFIG,
    'echo/1/.keep': '',
    'chain/config.pbtxt': CHAIN_CONFIG,
    'broken/config.pbtxt': 'name: "broken"\nbackend: "identity"\nmax_batch_size: 2\nbogus_field: 3\n',
    'broken/1/.keep': '',
  });
  repo.onnx('simple', 'simple.onnx');
  repo.onnx('mlp_auto', 'mlp.onnx'); // no config: auto-completed from the graph
  server = await createServer({ modelRepository: repo.dir });
});

after(async () => {
  await server.close();
  repo.remove();
});

test('simple: sums and differences computed by onnxruntime, batched [2,16]', async () => {
  const a = int32s(32, (i) => i);
  const b = int32s(32, (i) => 100 - i);
  const res = await inferOnce(server, {
    model: 'simple', id: 'r1',
    inputs: [createTensor('INPUT0', 'INT32', [2, 16], a), createTensor('INPUT1', 'INT32', [2, 16], b)],
  });
  assert.equal(res.id, 'r1');
  assert.equal(res.model, 'simple');
  assert.equal(res.version, '1');
  const out = Object.fromEntries(res.outputs.map((t) => [t.name, t]));
  assert.deepEqual([...(out.OUTPUT0!.data as Int32Array)], [...a].map((x, i) => x + b[i]!));
  assert.deepEqual([...(out.OUTPUT1!.data as Int32Array)], [...a].map((x, i) => x - b[i]!));
  assert.deepEqual(out.OUTPUT0!.shape, [2, 16]);
});

test('requested outputs only, and classification of an output', async () => {
  const res = await inferOnce(server, {
    model: 'simple',
    inputs: [createTensor('INPUT0', 'INT32', [1, 16], int32s(16, (i) => i)), createTensor('INPUT1', 'INT32', [1, 16], int32s(16, () => 1))],
    outputs: [{ name: 'OUTPUT1', parameters: { classification: 2 } }],
  });
  assert.equal(res.outputs.length, 1);
  const t = res.outputs[0]!;
  assert.equal(t.datatype, 'BYTES');
  assert.deepEqual(t.shape, [1, 2]);
  assert.deepEqual((t.data as Uint8Array[]).map((b) => new TextDecoder().decode(b)), ['14:15', '13:14']);
});

test('auto-completed MLP: config from the ONNX graph, outputs match a plain-JS forward pass', async () => {
  const cfg = server.modelConfig('mlp_auto');
  assert.equal(cfg.max_batch_size, 4);
  assert.deepEqual(cfg.input.map((i) => [i.name, i.data_type, i.dims]), [['x', 'TYPE_FP32', [64]]]);
  const x = Float32Array.from({ length: 64 }, (_, i) => Math.sin(i));
  const res = await inferOnce(server, { model: 'mlp_auto', inputs: [createTensor('x', 'FP32', [1, 64], x)] });
  const y = res.outputs[0]!.data as Float32Array;
  const expected = mlpForward(mlpWeights(), x, 1);
  for (let i = 0; i < 10; i++) assert.ok(Math.abs(y[i]! - expected[i]!) < 1e-4, `y[${i}] ${y[i]} vs ${expected[i]}`);
});

test('a two-step pipeline passes tensors between steps', async () => {
  const res = await inferOnce(server, {
    model: 'chain',
    inputs: [createTensor('A', 'INT32', [1, 16], int32s(16, (i) => i)), createTensor('B', 'INT32', [1, 16], int32s(16, (i) => 2 * i))],
  });
  assert.deepEqual(res.outputs.map((t) => t.name), ['SUM']);
  assert.deepEqual([...(res.outputs[0]!.data as Int32Array)], [...int32s(16, (i) => 3 * i)]);
  assert.equal(server.modelReady('chain'), true);
});

test('bad requests fail with catalog errors naming model and tensor', async () => {
  const bad = (inputs: Tensor[], model = 'simple') => expectError(inferOnce(server, { model, inputs }));
  const one = createTensor('INPUT0', 'INT32', [1, 16], int32s(16, () => 0));
  let e = await bad([one]);
  assert.equal(e.kind, 'INVALID_ARG');
  assert.match(e.message, /^expected 2 inputs but got 1 inputs for model 'simple'\. Got input\(s\) \['INPUT0'\], but missing required input\(s\) \['INPUT1'\]/);
  e = await bad([one, createTensor('INPUT1', 'FP32', [1, 16], new Float32Array(16))]);
  assert.match(e.message, /^inference input 'INPUT1' data-type is 'FP32', but model 'simple' expects 'INT32'/);
  e = await bad([one, createTensor('INPUT1', 'INT32', [1, 8], int32s(8, () => 0))]);
  assert.match(e.message, /^unexpected shape for input 'INPUT1' for model 'simple'\. Expected \[-1,16\], got \[1,8\]/);
  e = await bad([createTensor('INPUT0', 'INT32', [9, 16], int32s(144, () => 0)), createTensor('INPUT1', 'INT32', [9, 16], int32s(144, () => 0))]);
  assert.match(e.message, /^inference request batch-size must be <= 8 for 'simple'; got 9$/);
  e = await bad([one, createTensor('NOPE', 'INT32', [1, 16], int32s(16, () => 0))]);
  assert.match(e.message, /unexpected inference input 'NOPE'/);
  e = await bad([one], 'nosuch');
  assert.equal(e.kind, 'NOT_FOUND');
  e = await bad([one], 'broken');
  assert.equal(e.kind, 'NOT_FOUND');
  assert.match(e.message, /bogus_field/);
});

test('a model that fails to load is UNAVAILABLE with its reason; the rest serve', async () => {
  const index = await server.repositoryIndex();
  const broken = index.find((m) => m.name === 'broken')!;
  assert.equal(broken.state, 'UNAVAILABLE');
  assert.match(broken.reason, /bogus_field.*; broken\/config\.pbtxt:4:1/);
  assert.equal(index.find((m) => m.name === 'simple')!.state, 'READY');
  assert.equal(server.isReady(), false, 'strict readiness: not every model loaded');
  assert.equal(server.isLive(), true);
});

test('metadata and statistics', async () => {
  const md = server.modelMetadata('simple');
  assert.deepEqual(md.versions, ['1']);
  assert.equal(md.platform, 'onnxruntime_onnx');
  assert.deepEqual(md.inputs[0], { name: 'INPUT0', datatype: 'INT32', shape: [-1, 16] });
  const stats = server.modelStatistics('simple').model_stats[0]!;
  assert.ok(stats.inference_stats.success.count >= 2);
  assert.ok(stats.inference_stats.fail.count >= 4);
  assert.ok(stats.execution_count >= 2);
  assert.ok(stats.batch_stats.some((b) => b.batch_size === 2));
  const chain = server.modelStatistics('chain').model_stats[0]!;
  assert.ok(chain.step_stats && chain.step_stats.length === 2);
});
