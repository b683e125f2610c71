/** How replay compares a captured output with a new one: exact for integers and strings, tolerances for floats. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sha256Of, type RecordTensor } from '../../src/capture/index.js';
import { compareOutputs } from '../../src/cli/replay-compare.js';
import { createTensor } from '../../src/tensor/index.js';

const tol = { rtol: 1e-3, atol: 1e-6 };
const rec = (name: string, datatype: RecordTensor['datatype'], shape: number[], data: unknown[]): RecordTensor => ({ name, datatype, shape, data });

test('floats within atol + rtol x |captured| are the same; NaN equals NaN; past the tolerance they differ', () => {
  const captured = [rec('P', 'FP32', [4], [1, 100, null, 0])];
  assert.deepEqual(compareOutputs(captured, [createTensor('P', 'FP32', [4], [1.0005, 100.09, NaN, 5e-7])], tol), []);
  const d = compareOutputs(captured, [createTensor('P', 'FP32', [4], [1.01, 100, 0, 0])], tol);
  assert.equal(d.length, 1);
  assert.equal(d[0]!.output, 'P');
  assert.match(d[0]!.what, /^2 of 4 elements differ: \[0\] 1 captured, 1\.0099999904632568 now; \[2\] NaN captured, 0 now$/);
});

test('integers, booleans and strings must be equal; shape, datatype and presence are checked first', () => {
  assert.deepEqual(compareOutputs([rec('I', 'INT64', [2], [1, 2])], [createTensor('I', 'INT64', [2], [1n, 2n])], tol), []);
  assert.match(compareOutputs([rec('I', 'INT32', [2], [1, 2])], [createTensor('I', 'INT32', [2], [1, 3])], tol)[0]!.what, /\[1\] 2 captured, 3 now/);
  assert.match(compareOutputs([rec('S', 'BYTES', [1], ['yes'])], [createTensor('S', 'BYTES', [1], ['no'])], tol)[0]!.what, /"yes" captured, "no" now/);
  assert.match(compareOutputs([rec('B', 'BOOL', [1], [true])], [createTensor('B', 'BOOL', [1], [false])], tol)[0]!.what, /true captured, false now/);
  assert.deepEqual(compareOutputs([rec('S', 'BYTES', [1], ['a'])], [createTensor('S', 'BYTES', [2], ['a', 'b'])], tol), [{ output: 'S', what: 'shape [1] captured, [2] now' }]);
  assert.deepEqual(compareOutputs([rec('S', 'BYTES', [1], ['a'])], [createTensor('S', 'INT8', [1], [1])], tol), [{ output: 'S', what: 'datatype BYTES captured, INT8 now' }]);
  assert.deepEqual(compareOutputs([rec('A', 'INT8', [1], [1])], [createTensor('B', 'INT8', [1], [1])], tol), [
    { output: 'A', what: 'missing from the answer' }, { output: 'B', what: 'in the answer now, not in the captured one' },
  ]);
});

test('an output kept only as its SHA-256 is compared by its hash', () => {
  const now = createTensor('BIG', 'FP32', [3], [1, 2, 3]);
  const kept: RecordTensor = { name: 'BIG', datatype: 'FP32', shape: [3], omitted: 'max-bytes', bytes: 12, sha256: sha256Of(now) };
  assert.deepEqual(compareOutputs([kept], [now], tol), []);
  assert.match(compareOutputs([kept], [createTensor('BIG', 'FP32', [3], [1, 2, 4])], tol)[0]!.what, /another SHA-256/);
});

test('at most the first few differing elements of an output are named', () => {
  const d = compareOutputs([rec('X', 'INT32', [6], [0, 0, 0, 0, 0, 0])], [createTensor('X', 'INT32', [6], [1, 1, 1, 1, 1, 1])], tol, 2);
  assert.equal(d[0]!.what, '6 of 6 elements differ: [0] 0 captured, 1 now; [1] 0 captured, 1 now; ...');
});
