/**
 * Validation at the model's door (src/model/validate-request.ts) on its own: the refusals, the
 * inputs as the backend sees them, and the batch key requests are grouped by.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeConfig, type ModelConfig } from '../../src/config/index.js';
import { validateRequest, validateRequestedOutputs } from '../../src/model/validate-request.js';
import { Errors } from '../../src/errors.js';
import { createTensor } from '../../src/tensor/index.js';

function model(partial: object): { config: ModelConfig; byName: Map<string, ModelConfig['input'][number]>; outputs: Set<string> } {
  const config = normalizeConfig({ name: 'm', ...partial });
  return { config, byName: new Map(config.input.map((i) => [i.name, i])), outputs: new Set(config.output.map((o) => o.name)) };
}

const fp32 = (name: string, shape: number[]) => createTensor(name, 'FP32', shape, new Float32Array(shape.reduce((a, b) => a * b, 1)));

const BATCHED = model({
  max_batch_size: 4,
  input: [{ name: 'A', data_type: 'TYPE_FP32', dims: [-1, 3] }, { name: 'B', data_type: 'TYPE_FP32', dims: [2] }, { name: 'OPT', data_type: 'TYPE_FP32', dims: [1], optional: true }],
  output: [{ name: 'Y', data_type: 'TYPE_FP32', dims: [1] }, { name: 'Z', data_type: 'TYPE_FP32', dims: [1] }],
});

test('batch size from the first dimension, and the key written from the shape past it', () => {
  const v = validateRequest(BATCHED.config, BATCHED.byName, { model: 'm', inputs: [fp32('A', [2, 5, 3]), fp32('B', [2, 2])] });
  assert.equal(v.batchSize, 2);
  assert.equal(v.batchKey, 'A:FP32:5x3;B:FP32:2;');
  assert.equal(v.inputs.length, 2);
});

test('without batching the whole shape is checked and keyed; a scalar keys as empty', () => {
  const m = model({ input: [{ name: 'S', data_type: 'TYPE_FP32', dims: [] }, { name: 'V', data_type: 'TYPE_FP32', dims: [4] }], output: [] });
  const v = validateRequest(m.config, m.byName, { model: 'm', inputs: [fp32('S', []), fp32('V', [4])] });
  assert.equal(v.batchSize, 1);
  assert.equal(v.batchKey, 'S:FP32:;V:FP32:4;');
  assert.throws(() => validateRequest(m.config, m.byName, { model: 'm', inputs: [fp32('S', []), fp32('V', [1, 4])] }), (e: unknown) => Errors.shapeMismatch.is(e));
});

test('a duplicate input is refused, among a few inputs and among many', () => {
  assert.throws(() => validateRequest(BATCHED.config, BATCHED.byName, { model: 'm', inputs: [fp32('A', [1, 1, 3]), fp32('B', [1, 2]), fp32('A', [1, 1, 3])] }), (e: unknown) => Errors.inputDuplicate.is(e));
  const names = Array.from({ length: 20 }, (_, i) => `I${i}`);
  const many = model({ input: names.map((name) => ({ name, data_type: 'TYPE_FP32', dims: [1] })), output: [] });
  const inputs = names.map((n) => fp32(n, [1]));
  assert.equal(validateRequest(many.config, many.byName, { model: 'm', inputs }).inputs.length, 20);
  assert.throws(() => validateRequest(many.config, many.byName, { model: 'm', inputs: [...inputs, fp32('I7', [1])] }), (e: unknown) => Errors.inputDuplicate.is(e));
});

test('a missing required input is refused naming it; an optional one may be left out', () => {
  assert.equal(validateRequest(BATCHED.config, BATCHED.byName, { model: 'm', inputs: [fp32('A', [1, 1, 3]), fp32('B', [1, 2])] }).inputs.length, 2);
  assert.throws(
    () => validateRequest(BATCHED.config, BATCHED.byName, { model: 'm', inputs: [fp32('OPT', [1, 1]), fp32('A', [1, 1, 3])] }),
    (e: unknown) => Errors.inputMissing.is(e) && /B/.test((e as Error).message),
  );
});

test('a reshape is applied as a view; a request already in the reshaped form passes as it is', () => {
  const m = model({ max_batch_size: 2, input: [{ name: 'X', data_type: 'TYPE_FP32', dims: [6], reshape: { shape: [2, 3] } }], output: [] });
  const v = validateRequest(m.config, m.byName, { model: 'm', inputs: [fp32('X', [1, 6])] });
  assert.deepEqual(v.inputs[0]!.shape, [1, 2, 3]);
  const same = fp32('X', [1, 2, 3]);
  assert.equal(validateRequest(m.config, m.byName, { model: 'm', inputs: [same] }).inputs[0], same);
});

test('requested outputs: unknown and duplicate names are refused, among a few and among many', () => {
  validateRequestedOutputs(BATCHED.config, BATCHED.outputs, { model: 'm', inputs: [], outputs: [{ name: 'Y' }, { name: 'Z' }] });
  assert.throws(() => validateRequestedOutputs(BATCHED.config, BATCHED.outputs, { model: 'm', inputs: [], outputs: [{ name: 'Y' }, { name: 'Q' }] }), (e: unknown) => Errors.outputUnknown.is(e));
  assert.throws(() => validateRequestedOutputs(BATCHED.config, BATCHED.outputs, { model: 'm', inputs: [], outputs: [{ name: 'Z' }, { name: 'Y' }, { name: 'Z' }] }), (e: unknown) => Errors.outputDuplicate.is(e));
  const many = Array.from({ length: 18 }, (_, i) => ({ name: i % 2 ? 'Y' : 'Z' }));
  assert.throws(() => validateRequestedOutputs(BATCHED.config, BATCHED.outputs, { model: 'm', inputs: [], outputs: many }), (e: unknown) => Errors.outputDuplicate.is(e));
});
