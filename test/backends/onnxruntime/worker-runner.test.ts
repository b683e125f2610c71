import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOnnxRuntimeBackend, type OrtBackendModel } from '../../../backends/onnxruntime/index.js';
import { createTensor, markExclusive, type Tensor } from '../../../src/tensor/index.js';
import { SLOW_MATMUL_N, SLOW_MATMUL_SEED, testModelPath } from '../../../scripts/build-test-models.js';
import { seededFloats } from '../../../scripts/onnx/index.js';
import { io, loadContext, loadInstance, modelConfig, outputsOf, params, testRequest } from './harness.js';

const N = SLOW_MATMUL_N;
const slowConfig = (target: string) => modelConfig({
  name: 'slow', max_batch_size: 16, input: [io('x', 'TYPE_FP32', [N])], output: [io('y', 'TYPE_FP32', [N])],
  parameters: params({ execution_target: target }),
});
const mlpConfig = (target: string) => modelConfig({
  name: 'mlp', max_batch_size: 16, input: [io('x', 'TYPE_FP32', [64])], output: [io('y', 'TYPE_FP32', [10])],
  parameters: params({ execution_target: target }),
});

function rows(name: string, n: number, width: number, seed: number): Tensor {
  return createTensor(name, 'FP32', [n, width], Float32Array.from({ length: n * width }, (_, i) => Math.cos(i * 0.1 + seed)));
}

/** slow_matmul computes y = mean(x) * (x @ W); recompute it in JS. */
function slowExpected(x: Float32Array): Float64Array {
  const w = seededFloats(SLOW_MATMUL_SEED, N * N);
  const mean = x.reduce((a, b) => a + b, 0) / N;
  const y = new Float64Array(N);
  for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < N; k++) s += x[k]! * w[k * N + j]!;
    y[j] = mean * s;
  }
  return y;
}

test('worker execution gives the same results as inline (batched MLP, 3 requests)', async () => {
  const results: Float32Array[][] = [];
  for (const target of ['inline', 'worker']) {
    const { model, instance, close } = await loadInstance(createOnnxRuntimeBackend(), mlpConfig(target), testModelPath('mlp.onnx'));
    assert.equal((model as OrtBackendModel).executionTarget, target);
    const reqs = [1, 3, 2].map((n, k) => testRequest('mlp', [rows('x', n, 64, k)]));
    await instance.execute(reqs.map((r) => r.req));
    results.push(await Promise.all(reqs.map(async (r) => (await outputsOf(r)).y!.data as Float32Array)));
    await close();
  }
  assert.deepEqual(results[1], results[0]);
  assert.deepEqual(results[0]!.map((y) => y.length), [10, 30, 20]);
});

test('slow_matmul in a worker matches the JS computation and leaves the caller\'s input intact', async () => {
  const { instance, close } = await loadInstance(createOnnxRuntimeBackend(), slowConfig('worker'), testModelPath('slow_matmul.onnx'));
  const x = rows('x', 1, N, 3);
  const r = testRequest('slow', [x]);
  await instance.execute([r.req]);
  const y = (await outputsOf(r)).y!.data as Float32Array;
  const want = slowExpected(x.data as Float32Array);
  for (let j = 0; j < N; j += 37) assert.ok(Math.abs(y[j]! - want[j]!) <= 1e-3 * Math.max(1, Math.abs(want[j]!)), `y[${j}] ${y[j]} vs ${want[j]}`);
  // A single request's input is not the backend's to give away: it must not be detached.
  assert.equal((x.data as Float32Array).length, N);
  await close();
});

test('an input over a buffer marked exclusive moves to the worker (detached here), with the same results', async () => {
  const { instance, close } = await loadInstance(createOnnxRuntimeBackend(), slowConfig('worker'), testModelPath('slow_matmul.onnx'));
  const want = rows('x', 1, N, 5).data as Float32Array;
  // Like a request body: a JSON header, then the tensor's bytes at an 8-aligned offset.
  const body = new ArrayBuffer(24 + want.byteLength);
  const view = new Float32Array(body, 24, N);
  view.set(want);
  markExclusive(body);
  const r = testRequest('slow', [createTensor('x', 'FP32', [1, N], view)]);
  await instance.execute([r.req]);
  const y = (await outputsOf(r)).y!.data as Float32Array;
  assert.equal(body.byteLength, 0, 'the marked body was copied instead of moved');
  const expected = slowExpected(want);
  for (let j = 0; j < N; j += 37) assert.ok(Math.abs(y[j]! - expected[j]!) <= 1e-3 * Math.max(1, Math.abs(expected[j]!)), `y[${j}] ${y[j]} vs ${expected[j]}`);
  await close();
});

/** setImmediate ticks that happen while `work` runs. */
async function ticksDuring(work: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  let running = true;
  const spin = () => { if (running) { ticks++; setImmediate(spin); } };
  setImmediate(spin);
  await work();
  running = false;
  return ticks;
}

test('a worker does not block the event loop while a slow model runs; inline does', async () => {
  const counts: Record<string, number> = {};
  for (const target of ['inline', 'worker']) {
    const { instance, close } = await loadInstance(createOnnxRuntimeBackend(), slowConfig(target), testModelPath('slow_matmul.onnx'));
    // 8 rows of N^3 multiply-adds each: several ms of compute per execution.
    const exec = async () => {
      for (let i = 0; i < 3; i++) {
        const r = testRequest('slow', [rows('x', 8, N, i)]);
        await instance.execute([r.req]);
        await outputsOf(r);
      }
    };
    await exec(); // warm
    counts[target] = await ticksDuring(exec);
    await close();
  }
  if (process.env.TRB_VERBOSE) console.log(counts);
  assert.ok(counts.worker! >= 20, `worker: only ${counts.worker} ticks while running`);
  assert.ok(counts.worker! > 5 * Math.max(1, counts.inline!), `worker ${counts.worker} ticks vs inline ${counts.inline}`);
});

test('auto: a slow model goes to a worker, a tiny one stays inline', async () => {
  const slow = await createOnnxRuntimeBackend().load(slowConfig('auto'), loadContext(testModelPath('slow_matmul.onnx'))) as OrtBackendModel;
  assert.equal(slow.executionTarget, 'worker', `measured ${slow.measuredRunUs} µs`);
  assert.ok(slow.measuredRunUs! > 200);
  await slow.finalize?.();
  const tiny = await createOnnxRuntimeBackend().load(mlpConfig('auto'), loadContext(testModelPath('mlp.onnx'))) as OrtBackendModel;
  assert.equal(tiny.executionTarget, 'inline', `measured ${tiny.measuredRunUs} µs`);
  assert.ok(tiny.measuredRunUs! < 200);
  await tiny.finalize?.();
});
