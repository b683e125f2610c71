import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as ortNode from 'onnxruntime-node';
import { createOnnxRuntimeBackend } from '../../../backends/onnxruntime/index.js';
import { availableProviders } from '../../../backends/onnxruntime/available-providers.js';
import { ortSettings } from '../../../backends/onnxruntime/session-options.js';
import { Errors } from '../../../src/errors.js';
import type { ModelConfig } from '../../../src/config/index.js';
import { testModelPath } from '../../../scripts/build-test-models.js';
import { io, loadContext, modelConfig, params } from './harness.js';

const base = (extra: Partial<ModelConfig> = {}) => modelConfig({
  name: 'mlp', max_batch_size: 8, input: [io('x', 'TYPE_FP32', [64])], output: [io('y', 'TYPE_FP32', [10])], ...extra,
});
const accel = (gpu: string[], cpu: string[] = []) => ({
  execution_accelerators: {
    gpu_execution_accelerator: gpu.map((name) => ({ name, parameters: {} })),
    cpu_execution_accelerator: cpu.map((name) => ({ name, parameters: {} })),
  },
});

test('providers follow what onnxruntime-node reports: cuda/tensorrt are not bundled here', () => {
  const listed = new Map(ortNode.listSupportedBackends().map((b) => [b.name, b.bundled]));
  const have = availableProviders();
  assert.ok(have.has('cpu'));
  for (const p of ['cuda', 'tensorrt']) assert.equal(have.has(p), listed.get(p) === true, p);
});

for (const [gpu, cpu, name] of [[['cuda'], [], 'cuda'], [['tensorrt'], [], 'tensorrt'], [[], ['openvino'], 'openvino']] as const) {
  test(`execution accelerator '${name}' fails the load with providerUnavailable`, async () => {
    const cfg = base({ optimization: accel([...gpu], [...cpu]) });
    await assert.rejects(createOnnxRuntimeBackend().load(cfg, loadContext(testModelPath('mlp.onnx'))), (e: Error) => {
      assert.ok(Errors.providerUnavailable.is(e), String(e));
      assert.match(e.message, new RegExp(`model 'mlp': execution provider '${name}' is not available`));
      assert.match(e.message, /optimization\.execution_accelerators/);
      return true;
    });
  });
}

test('a KIND_GPU instance group fails clearly without a GPU provider', async () => {
  const cfg = base({ instance_group: [{ name: 'g', kind: 'KIND_GPU', count: 1, gpus: [0] }] });
  await assert.rejects(createOnnxRuntimeBackend().load(cfg, loadContext(testModelPath('mlp.onnx'))),
    (e: Error) => Errors.providerUnavailable.is(e) && /cuda \(instance_group 'g' has kind KIND_GPU\)/.test(e.message));
});

test('cpu accelerator, thread counts, execution mode and graph level map to ORT options', () => {
  const s = ortSettings(base({
    optimization: { ...accel([], ['cpu']), graph: { level: -1 } },
    parameters: params({ intra_op_thread_count: 2, inter_op_thread_count: 3, execution_mode: 1, execution_target: 'worker' }),
  }));
  assert.deepEqual(s.options, {
    intraOpNumThreads: 2, interOpNumThreads: 3, executionMode: 'parallel', graphOptimizationLevel: 'basic', executionProviders: ['cpu'],
  });
  assert.equal(s.target, 'worker');
  const d = ortSettings(base());
  assert.equal(d.options.intraOpNumThreads, 1);
  assert.equal(d.options.graphOptimizationLevel, 'all');
  assert.equal(d.options.executionMode, 'sequential');
  assert.equal(d.target, 'auto');
  assert.equal(ortSettings(base({ optimization: { graph: { level: 1 } } })).options.graphOptimizationLevel, 'extended');
  assert.equal(ortSettings(base({ optimization: { graph: { level: 2 } } })).options.graphOptimizationLevel, 'disabled');
});

test('bad parameter values fail the load naming the parameter', () => {
  assert.throws(() => ortSettings(base({ parameters: params({ execution_target: 'gpu' }) })), /execution_target 'gpu' must be one of inline, worker, auto/);
  assert.throws(() => ortSettings(base({ parameters: params({ execution_mode: 'fast' }) })), /execution_mode 'fast' must be 0 \(sequential\) or 1 \(parallel\)/);
});
