import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveReshape } from '../../src/tensor/index.js';

test('the n-th -1 of the target takes the size at the n-th -1 of the source (Triton)', () => {
  assert.deepEqual(resolveReshape([2, 4, -1, 6], [2, 4, 5, 6], [8, -1, 1, 6]), [8, 5, 1, 6]);
  assert.deepEqual(resolveReshape([-1, 3, -1], [2, 3, 4], [-1, -1, 3]), [2, 4, 3]);
  assert.deepEqual(resolveReshape([16], [16], [4, 4]), [4, 4]);
});

test('a -1 without a partner is inferred from the element count', () => {
  assert.deepEqual(resolveReshape([2, 4, 5, 6], [2, 4, 5, 6], [8, -1, 1, 6]), [8, 5, 1, 6]);
  assert.deepEqual(resolveReshape([], [3, 4], [-1]), [12]);
});

test('shapes whose element counts cannot agree resolve to nothing', () => {
  assert.equal(resolveReshape([16], [16], [4, 5]), undefined);
  assert.equal(resolveReshape([], [7], [2, -1]), undefined);
  assert.equal(resolveReshape([], [12], [-1, -1]), undefined, 'two sizes from one count');
  assert.equal(resolveReshape([-1], [6], [-1, 4]), undefined, 'the partner size leaves a count that does not fit');
});
