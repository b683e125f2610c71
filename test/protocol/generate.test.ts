import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeGenerateRequest, encodeGenerateResponse } from '../../src/protocol/generate.js';
import { createTensor, tensorStrings } from '../../src/tensor/index.js';
import { Errors } from '../../src/errors.js';

const inputs = [
  { name: 'text_input', datatype: 'BYTES' as const, shape: [-1, 1] },
  { name: 'max_tokens', datatype: 'INT32' as const, shape: [-1, 1] },
  { name: 'bad_words', datatype: 'BYTES' as const, shape: [-1, -1] },
];

test('fields map to inputs by name; the rest become parameters', () => {
  const req = decodeGenerateRequest({
    id: '7', text_input: 'hi', max_tokens: 5, bad_words: ['a', 'b'], temperature: 0.5, parameters: { stream: false, priority: 1 },
  }, { model: 'g', inputs });
  assert.equal(req.id, '7');
  assert.equal(req.priority, 1);
  assert.deepEqual(req.parameters, { stream: false, temperature: 0.5 });
  const t = req.inputs.find((i) => i.name === 'text_input')!;
  assert.deepEqual(t.shape, [1, 1]);
  assert.deepEqual(tensorStrings(t), ['hi']);
  assert.deepEqual(req.inputs.find((i) => i.name === 'bad_words')!.shape, [1, 2]);
  assert.deepEqual(Array.from(req.inputs.find((i) => i.name === 'max_tokens')!.data as Int32Array), [5]);
});

test('type errors name the field', () => {
  assert.throws(() => decodeGenerateRequest({ max_tokens: 'x' }, { model: 'g', inputs }), { code: Errors.tensorElementInvalid.code });
  assert.throws(() => decodeGenerateRequest({ x: [1] }, { model: 'g', inputs }), { code: Errors.requestParameterType.code });
  assert.throws(() => decodeGenerateRequest('no', { model: 'g', inputs }), { code: Errors.requestBodyNotObject.code });
});

test('one-element outputs become scalars', () => {
  const s = encodeGenerateResponse({
    model: 'g', version: '1', final: true,
    outputs: [createTensor('text_output', 'BYTES', [1, 1], ['hello']), createTensor('logp', 'FP32', [2], [0.5, 0.25]), createTensor('n', 'INT32', [1], [3])],
  });
  assert.equal(typeof s, 'string', 'UTF-8 BYTES keep the text path');
  assert.deepEqual(JSON.parse(s as string), { model_name: 'g', model_version: '1', text_output: 'hello', logp: [0.5, 0.25], n: 3 });
});
