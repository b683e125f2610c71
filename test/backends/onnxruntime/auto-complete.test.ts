import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createOnnxRuntimeBackend } from '../../../backends/onnxruntime/index.js';
import { Errors } from '../../../src/errors.js';
import { createTensor } from '../../../src/tensor/index.js';
import type { ModelConfig } from '../../../src/config/index.js';
import { testModelPath } from '../../../scripts/build-test-models.js';
import { io, loadContext, loadInstance, modelConfig, outputsOf, testRequest } from './harness.js';

const ort = createOnnxRuntimeBackend();
const root = mkdtempSync(join(tmpdir(), 'trb-ort-ac-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A model directory holding only 1/model.onnx, as a user would drop it in a repository. */
function bareModelDir(name: string, source: string): string {
  const file = join(root, name, '1', 'model.onnx');
  mkdirSync(join(root, name, '1'), { recursive: true });
  copyFileSync(testModelPath(source), file);
  return file;
}

function bare(name: string, extra: Partial<ModelConfig> = {}): ModelConfig {
  return modelConfig({ name, backend: '', platform: '', ...extra });
}

async function complete(name: string, source: string, extra: Partial<ModelConfig> = {}): Promise<ModelConfig> {
  return ort.autoComplete!(bare(name, extra), loadContext(bareModelDir(name, source)));
}

test('no config: inputs, outputs, datatypes, dims and max_batch_size come from the graph', async () => {
  const c = await complete('simple', 'simple.onnx');
  assert.equal(c.max_batch_size, 4);
  assert.equal(c.backend, 'onnxruntime');
  assert.equal(c.platform, 'onnxruntime_onnx');
  assert.deepEqual(c.input.map((i) => [i.name, i.data_type, i.dims]), [['INPUT0', 'TYPE_INT32', [16]], ['INPUT1', 'TYPE_INT32', [16]]]);
  assert.deepEqual(c.output.map((o) => [o.name, o.data_type, o.dims]), [['OUTPUT0', 'TYPE_INT32', [16]], ['OUTPUT1', 'TYPE_INT32', [16]]]);
  // The completed config loads and runs.
  const { instance, close } = await loadInstance(ort, c, join(root, 'simple', '1', 'model.onnx'));
  const r = testRequest('simple', [createTensor('INPUT0', 'INT32', [1, 16], new Int32Array(16).fill(4)), createTensor('INPUT1', 'INT32', [1, 16], new Int32Array(16).fill(1))]);
  await instance.execute([r.req]);
  assert.equal(((await outputsOf(r)).OUTPUT1!.data as Int32Array)[15], 3);
  await close();
});

test('symbolic dims (p2o.DynamicDimension.N) become -1; the first one is the batch dim', async () => {
  const c = await complete('p2o', 'p2o_dims.onnx');
  assert.equal(c.max_batch_size, 4);
  assert.deepEqual(c.input[0], { name: 'x', data_type: 'TYPE_FP32', dims: [3, -1] });
  assert.deepEqual(c.output[0], { name: 'y', data_type: 'TYPE_FP32', dims: [3, -1] });
});

test('an explicit max_batch_size is kept', async () => {
  const c = await complete('mlp_mbs', 'mlp.onnx', { max_batch_size: 32 });
  assert.equal(c.max_batch_size, 32);
  assert.deepEqual(c.input[0]!.dims, [64]);
});

test('a model with a fixed first dim does not batch: max_batch_size 0 and full dims', async () => {
  const c = await complete('fixed', 'fixed_shape.onnx');
  assert.equal(c.max_batch_size, 0);
  assert.deepEqual(c.input[0]!.dims, [2, 3]);
});

test('config dims of the full rank mean "no batching" (Triton rule): max_batch_size stays 0', async () => {
  const c = await complete('mlp_nobatch', 'mlp.onnx', { input: [io('x', 'TYPE_FP32', [-1, 64])] });
  assert.equal(c.max_batch_size, 0);
  assert.deepEqual(c.output[0]!.dims, [-1, 10]);
});

test('partial config: given inputs are kept, missing outputs are filled', async () => {
  const c = await complete('mlp_partial', 'mlp.onnx', { input: [io('x', 'TYPE_FP32', [64])] });
  assert.equal(c.max_batch_size, 4);
  assert.deepEqual(c.output, [{ name: 'y', data_type: 'TYPE_FP32', dims: [10] }]);
});

function rejectsWith(p: Promise<unknown>, ...patterns: RegExp[]) {
  return assert.rejects(p, (e: Error) => {
    assert.ok(Errors.modelLoadFailed.is(e), `expected modelLoadFailed, got ${e}`);
    for (const re of patterns) assert.match(e.message, re);
    return true;
  });
}

test('config/graph disagreements name both sides', async () => {
  await rejectsWith(complete('bad_name', 'mlp.onnx', { input: [io('input', 'TYPE_FP32', [64])] }),
    /'bad_name'/, /config input 'input' is not an input of the model; model inputs: 'x' FP32 \[batch,64\]/, /model input 'x' FP32 \[batch,64\] is missing from the config/);
  await rejectsWith(complete('bad_type', 'mlp.onnx', { input: [io('x', 'TYPE_INT64', [64])] }),
    /input 'x': config data_type TYPE_INT64 but the model has TYPE_FP32/);
  await rejectsWith(complete('bad_rank', 'mlp.onnx', { max_batch_size: 8, input: [io('x', 'TYPE_FP32', [64, 1])] }),
    /input 'x': config dims \[64,1\] \(with the batch dim: \[-1,64,1\]\) has rank 3 but the model shape \[batch,64\] has rank 2/);
  await rejectsWith(complete('bad_dim', 'mlp.onnx', { max_batch_size: 8, output: [io('y', 'TYPE_FP32', [12])] }),
    /output 'y': config dims \[12\] .* at dimension 1 \(config 12, model 10\)/);
  await rejectsWith(complete('bad_batch', 'fixed_shape.onnx', { max_batch_size: 8 }),
    /max_batch_size is 8 but model tensor 'x' FP32 \[2,3\] has no variable first dimension/);
});

test('load checks a strict config against the graph too', async () => {
  const cfg = modelConfig({ name: 'strict_bad', max_batch_size: 4, input: [io('x', 'TYPE_FP16', [64])], output: [io('y', 'TYPE_FP32', [10])] });
  await rejectsWith(ort.load(cfg, loadContext(testModelPath('mlp.onnx'))), /config data_type TYPE_FP16 but the model has TYPE_FP32/);
});
