import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOnnxRuntimeBackend } from '../../../backends/onnxruntime/index.js';
import { Errors } from '../../../src/errors.js';
import { createTensor, type Tensor } from '../../../src/tensor/index.js';
import { FIXED_SHAPE_OFFSET, testModelPath } from '../../../scripts/build-test-models.js';
import { mlpForward, mlpWeights } from '../../../scripts/onnx/index.js';
import { errorOf, io, loadContext, loadInstance, modelConfig, outputsOf, params, testRequest } from './harness.js';

const ort = createOnnxRuntimeBackend();

const simpleConfig = (extra: Record<string, string | number> = {}) => modelConfig({
  name: 'simple', max_batch_size: 8,
  input: [io('INPUT0', 'TYPE_INT32', [16]), io('INPUT1', 'TYPE_INT32', [16])],
  output: [io('OUTPUT0', 'TYPE_INT32', [16]), io('OUTPUT1', 'TYPE_INT32', [16])],
  parameters: params({ execution_target: 'inline', ...extra }),
});

function ints(name: string, rows: number, f: (i: number) => number): Tensor {
  return createTensor(name, 'INT32', [rows, 16], Array.from({ length: rows * 16 }, (_, i) => f(i)));
}

test('simple: OUTPUT0 = INPUT0 + INPUT1 and OUTPUT1 = INPUT0 - INPUT1', async () => {
  const { instance, close } = await loadInstance(ort, simpleConfig(), testModelPath('simple.onnx'));
  const a = ints('INPUT0', 1, (i) => i);
  const b = ints('INPUT1', 1, () => 1);
  const r = testRequest('simple', [a, b]);
  const timings = await instance.execute([r.req]);
  const out = await outputsOf(r);
  assert.deepEqual([...(out.OUTPUT0!.data as Int32Array)], Array.from({ length: 16 }, (_, i) => i + 1));
  assert.deepEqual([...(out.OUTPUT1!.data as Int32Array)], Array.from({ length: 16 }, (_, i) => i - 1));
  assert.deepEqual(out.OUTPUT0!.shape, [1, 16]);
  assert.equal(out.OUTPUT0!.datatype, 'INT32');
  assert.ok(timings && timings.computeInferNs > 0 && timings.computeInputNs >= 0 && timings.computeOutputNs >= 0);
  await close();
});

test('a batch of 3 requests runs once and is split back per request', async () => {
  const { instance, close } = await loadInstance(ort, simpleConfig(), testModelPath('simple.onnx'));
  const rows = [1, 2, 3];
  const reqs = rows.map((n, k) => testRequest('simple', [ints('INPUT0', n, (i) => 100 * k + i), ints('INPUT1', n, (i) => k * i)]));
  await instance.execute(reqs.map((r) => r.req));
  for (const [k, r] of reqs.entries()) {
    const out = await outputsOf(r);
    const n = rows[k]!;
    assert.deepEqual(out.OUTPUT0!.shape, [n, 16]);
    assert.deepEqual([...(out.OUTPUT0!.data as Int32Array)], Array.from({ length: n * 16 }, (_, i) => 100 * k + i + k * i));
    assert.deepEqual([...(out.OUTPUT1!.data as Int32Array)], Array.from({ length: n * 16 }, (_, i) => 100 * k + i - k * i));
  }
  await close();
});

test('requested outputs: only the named output is returned', async () => {
  const { instance, close } = await loadInstance(ort, simpleConfig(), testModelPath('simple.onnx'));
  const r = testRequest('simple', [ints('INPUT0', 1, () => 5), ints('INPUT1', 1, () => 2)], { outputs: [{ name: 'OUTPUT1' }] });
  await instance.execute([r.req]);
  const out = await outputsOf(r);
  assert.deepEqual(Object.keys(out), ['OUTPUT1']);
  assert.equal((out.OUTPUT1!.data as Int32Array)[0], 3);
  await close();
});

test('mlp: ORT output matches a plain-JS forward pass of the same seeded weights', async () => {
  const cfg = modelConfig({
    name: 'mlp', max_batch_size: 64, input: [io('x', 'TYPE_FP32', [64])], output: [io('y', 'TYPE_FP32', [10])],
    parameters: params({ execution_target: 'inline' }),
  });
  const { instance, close } = await loadInstance(ort, cfg, testModelPath('mlp.onnx'));
  const rows = 5;
  const x = Float32Array.from({ length: rows * 64 }, (_, i) => Math.sin(i * 0.37));
  const r = testRequest('mlp', [createTensor('x', 'FP32', [rows, 64], x)]);
  await instance.execute([r.req]);
  const y = (await outputsOf(r)).y!;
  assert.deepEqual(y.shape, [rows, 10]);
  const expected = mlpForward(mlpWeights(), x, rows);
  const got = y.data as Float32Array;
  for (let i = 0; i < expected.length; i++) assert.ok(Math.abs(got[i]! - expected[i]!) < 1e-4, `y[${i}] = ${got[i]}, expected ${expected[i]}`);
  assert.ok(expected.some((v) => Math.abs(v) > 0.05), 'outputs are not trivially zero');
  await close();
});

test('fixed_shape: a model without a batch dimension', async () => {
  const cfg = modelConfig({ name: 'fixed', input: [io('x', 'TYPE_FP32', [2, 3])], output: [io('y', 'TYPE_FP32', [2, 3])] });
  const { instance, close } = await loadInstance(ort, cfg, testModelPath('fixed_shape.onnx'));
  const reqs = [1, 2].map((k) => testRequest('fixed', [createTensor('x', 'FP32', [2, 3], [k, k, k, k, k, k])], { batchSize: 1 }));
  await instance.execute(reqs.map((r) => r.req));
  for (const [i, r] of reqs.entries()) {
    const y = (await outputsOf(r)).y!;
    assert.deepEqual([...(y.data as Float32Array)], [...FIXED_SHAPE_OFFSET].map((v) => v + i + 1));
  }
  await close();
});

test('an aborted request is failed as cancelled and not run; the others still run', async () => {
  const { instance, close } = await loadInstance(ort, simpleConfig(), testModelPath('simple.onnx'));
  const ac = new AbortController();
  ac.abort();
  const gone = testRequest('simple', [ints('INPUT0', 1, () => 1), ints('INPUT1', 1, () => 1)], { signal: ac.signal });
  const kept = testRequest('simple', [ints('INPUT0', 1, () => 7), ints('INPUT1', 1, () => 1)]);
  await instance.execute([gone.req, kept.req]);
  assert.ok(Errors.cancelled.is(await errorOf(gone)));
  assert.equal(((await outputsOf(kept)).OUTPUT0!.data as Int32Array)[0], 8);
  await close();
});

test('a run error fails the batch with backendFailed naming the model', async () => {
  const { instance, close } = await loadInstance(ort, simpleConfig(), testModelPath('simple.onnx'));
  // 8 columns instead of 16: the model layer would reject it, here ORT itself does.
  const bad = createTensor('INPUT0', 'INT32', [1, 8], new Int32Array(8));
  const r = testRequest('simple', [bad, createTensor('INPUT1', 'INT32', [1, 8], new Int32Array(8))]);
  await instance.execute([r.req]);
  const e = await errorOf(r);
  assert.ok(Errors.backendFailed.is(e), String(e));
  assert.match((e as Error).message, /'simple'/);
  assert.match((e as Error).message, /onnxruntime run failed/);
  await close();
});

test('a missing model file fails the load naming the file relative to the model directory', async () => {
  await assert.rejects(ort.load(simpleConfig(), loadContext('/nonexistent/1/model.onnx')),
    (e: Error) => Errors.modelFileMissing.is(e) && /model file '1\/model\.onnx' not found in the model directory$/.test(e.message) && !e.message.includes('/nonexistent'));
});
