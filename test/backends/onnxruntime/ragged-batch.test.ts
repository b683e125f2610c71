import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOnnxRuntimeBackend } from '../../../backends/onnxruntime/index.js';
import { batchInputFeed } from '../../../backends/onnxruntime/ragged-batch.js';
import type { ModelConfig } from '../../../src/config/index.js';
import { Errors } from '../../../src/errors.js';
import { createTensor } from '../../../src/tensor/index.js';
import { testModelPath } from '../../../scripts/build-test-models.js';
import { io, loadInstance, modelConfig, outputsOf, params, testRequest } from './harness.js';

const ort = createOnnxRuntimeBackend();

function raggedConfig(target: 'inline' | 'worker', ragged = true): ModelConfig {
  return modelConfig({
    name: 'ragged_sum', max_batch_size: 8,
    input: [{ ...io('INPUT', 'TYPE_FP32', [-1]), allow_ragged_batch: ragged }],
    output: [io('SUM', 'TYPE_FP32', [1]), io('DOUBLED', 'TYPE_FP32', [-1])],
    batch_input: [{ kind: 'BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO', target_name: ['OFFSETS'], data_type: 'TYPE_INT32', source_input: ['INPUT'] }],
    batch_output: [{ kind: 'BATCH_SCATTER_WITH_INPUT_SHAPE', target_name: ['DOUBLED'], source_input: ['INPUT'] }],
    parameters: params({ execution_target: target }),
  });
}

const ramp = (n: number, from: number) => createTensor('INPUT', 'FP32', [1, n], Array.from({ length: n }, (_, i) => from + i));
const sumOf = (n: number, from: number) => n * from + (n * (n - 1)) / 2;

for (const target of ['inline', 'worker'] as const) {
  test(`ragged input (${target}): requests of 16, 8 and 3 elements run as one batch, each answered with its own sum and shape`, async () => {
    const { instance, close } = await loadInstance(ort, raggedConfig(target), testModelPath('ragged_sum.onnx'));
    const lens = [16, 8, 3];
    const reqs = lens.map((n, k) => testRequest('ragged_sum', [ramp(n, 100 * k)]));
    await instance.execute(reqs.map((r) => r.req));
    for (const [k, r] of reqs.entries()) {
      const out = await outputsOf(r);
      const n = lens[k]!;
      assert.deepEqual(out.SUM!.shape, [1, 1]);
      assert.equal((out.SUM!.data as Float32Array)[0], sumOf(n, 100 * k));
      assert.deepEqual(out.DOUBLED!.shape, [1, n], 'the batch output takes the shape of its source input');
      assert.deepEqual([...(out.DOUBLED!.data as Float32Array)], Array.from({ length: n }, (_, i) => 2 * (100 * k + i)));
    }
    await close();
  });
}

test('ragged input: a lone request is fed flattened, and its batch output gets its input shape back', async () => {
  const { instance, close } = await loadInstance(ort, raggedConfig('inline'), testModelPath('ragged_sum.onnx'));
  const r = testRequest('ragged_sum', [ramp(5, 1)]);
  await instance.execute([r.req]);
  const out = await outputsOf(r);
  assert.equal((out.SUM!.data as Float32Array)[0], 15);
  assert.deepEqual(out.DOUBLED!.shape, [1, 5]);
  await close();
});

test('a rank-1 model input without allow_ragged_batch is refused at load naming the ragged rule', async () => {
  await assert.rejects(loadInstance(ort, raggedConfig('inline', false), testModelPath('ragged_sum.onnx')), (e: unknown) => {
    assert.ok(Errors.modelLoadFailed.is(e));
    assert.match((e as Error).message, /input 'INPUT': config dims \[-1\] \(with the batch dim: \[-1,-1\]\) has rank 2/);
    return true;
  });
});

test('allow_ragged_batch on an input the model gives more than one dimension is refused, naming the model shape', async () => {
  const cfg = modelConfig({
    name: 'simple', max_batch_size: 8,
    input: [{ ...io('INPUT0', 'TYPE_INT32', [16]), allow_ragged_batch: true }, io('INPUT1', 'TYPE_INT32', [16])],
    output: [io('OUTPUT0', 'TYPE_INT32', [16]), io('OUTPUT1', 'TYPE_INT32', [16])],
  });
  await assert.rejects(loadInstance(ort, cfg, testModelPath('simple.onnx')), /ragged input 'INPUT0' \(allow_ragged_batch\) needs the model shape \[-1\].*\[batch,16\]/);
});

test('a batch_input whose target is not a model input is refused at load', async () => {
  const cfg = raggedConfig('inline');
  cfg.batch_input = [{ ...cfg.batch_input[0]!, target_name: ['NOPE'] }];
  await assert.rejects(loadInstance(ort, cfg, testModelPath('ragged_sum.onnx')), /batch_input BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO target 'NOPE' is not an input of the model/);
});

test('every batch_input kind has the value and shape Triton gives it', () => {
  // Triton's model_config.proto example: a batch-2 request of shape [2,3,1] and a batch-1 request of [1,2,2].
  const reqs = [testRequest('m', [createTensor('X', 'FP32', [2, 3, 1], new Float32Array(6))]), testRequest('m', [createTensor('X', 'FP32', [1, 2, 2], new Float32Array(4))])];
  const feed = (kind: ModelConfig['batch_input'][number]['kind'], dt: 'TYPE_INT32' | 'TYPE_FP32' = 'TYPE_INT32') => {
    const t = batchInputFeed('m', { kind, target_name: ['B'], data_type: dt, source_input: ['X'] }, 'B', reqs.map((r) => r.req));
    return { shape: t.shape, values: [...(t.data as Int32Array | Float32Array)], datatype: t.datatype };
  };
  assert.deepEqual(feed('BATCH_ELEMENT_COUNT'), { shape: [2], values: [6, 4], datatype: 'INT32' });
  assert.deepEqual(feed('BATCH_ACCUMULATED_ELEMENT_COUNT'), { shape: [2], values: [6, 10], datatype: 'INT32' });
  assert.deepEqual(feed('BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO', 'TYPE_FP32'), { shape: [3], values: [0, 6, 10], datatype: 'FP32' });
  assert.deepEqual(feed('BATCH_MAX_ELEMENT_COUNT_AS_SHAPE').shape, [6]);
  assert.deepEqual(feed('BATCH_ITEM_SHAPE'), { shape: [3, 2], values: [3, 1, 3, 1, 2, 2], datatype: 'INT32' });
  assert.deepEqual(feed('BATCH_ITEM_SHAPE_FLATTEN'), { shape: [6], values: [3, 1, 3, 1, 2, 2], datatype: 'INT32' });
});
