import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classify } from '../../src/model/classification.js';
import { createTensor, tensorStrings } from '../../src/tensor/index.js';
import { Errors } from '../../src/errors.js';

test('classification returns top-k "value:index:label" per batch row', () => {
  const t = createTensor('OUT', 'FP32', [2, 3], [0.1, 0.7, 0.2, 0.9, 0.05, 0.05]);
  const c = classify(t, 2, true, ['cat', 'dog', 'eel']);
  assert.deepEqual(c.shape, [2, 2]);
  assert.deepEqual(tensorStrings(c), ['0.700000:1:dog', '0.200000:2:eel', '0.900000:0:cat', '0.050000:1:dog']);
  const unbatched = classify(createTensor('O', 'INT32', [3], [5, 9, 1]), 1, false);
  assert.deepEqual(tensorStrings(unbatched), ['9:1']);
  assert.throws(() => classify(createTensor('B', 'BYTES', [1], ['x']), 1, false), { code: Errors.classificationDatatype.code });
});
