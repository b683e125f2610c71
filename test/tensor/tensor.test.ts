import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DATATYPES, concatBatch, createTensor, elementSize, fromConfigType, sliceBatch, tensorByteSize, tensorFromBytes,
  tensorStrings, tensorToBytes, toConfigType,
} from '../../src/tensor/index.js';
import { Errors, TributaryError } from '../../src/errors.js';

test('every datatype round-trips through its wire bytes', () => {
  for (const dt of DATATYPES) {
    const t = dt === 'BYTES'
      ? createTensor('x', dt, [2, 2], ['a', '', 'héllo', 'zz'])
      : createTensor('x', dt, [2, 2], dt.endsWith('64') && dt !== 'FP64' ? [1n, 2n, 3n, 4n] : [1, 0, 1, 1]);
    const bytes = tensorToBytes(t);
    assert.equal(bytes.byteLength, tensorByteSize(t), dt);
    const back = tensorFromBytes('x', dt, [2, 2], bytes);
    assert.deepEqual(back.data, t.data, dt);
    if (dt !== 'BYTES') assert.equal(bytes.byteLength, 4 * elementSize(dt));
  }
});

test('numeric tensors from bytes are views, not copies, when aligned', () => {
  const buf = new Uint8Array(64);
  const t = tensorFromBytes('x', 'FP32', [4], buf.subarray(16, 32));
  (t.data as Float32Array)[0] = 1.5;
  assert.equal(new Float32Array(buf.buffer, 16, 1)[0], 1.5);
  const misaligned = tensorFromBytes('x', 'FP32', [1], buf.subarray(1, 5));
  assert.equal((misaligned.data as Float32Array).length, 1);
});

test('byte size mismatches and truncated BYTES name the tensor', () => {
  assert.throws(() => tensorFromBytes('IN', 'FP32', [3], new Uint8Array(8)), (e: unknown) =>
    e instanceof TributaryError && e.kind === 'INVALID_ARG' && Errors.tensorByteSize.is(e));
  const bad = new Uint8Array([5, 0, 0, 0, 97]);
  assert.throws(() => tensorFromBytes('S', 'BYTES', [1], bad), { code: Errors.tensorBytesMalformed.code });
  assert.throws(() => createTensor('T', 'INT32', [3], [1, 2]), { code: Errors.tensorElementCount.code });
});

test('BYTES length prefixes are little-endian u32', () => {
  const t = createTensor('s', 'BYTES', [1], ['abc']);
  assert.deepEqual([...tensorToBytes(t)], [3, 0, 0, 0, 97, 98, 99]);
  assert.deepEqual(tensorStrings(tensorFromBytes('s', 'BYTES', [1], tensorToBytes(t))), ['abc']);
});

test('concatBatch copies once into one buffer and sliceBatch views rows back', () => {
  const a = createTensor('x', 'INT32', [1, 3], [1, 2, 3]);
  const b = createTensor('x', 'INT32', [2, 3], [4, 5, 6, 7, 8, 9]);
  const batch = concatBatch([a, b]);
  assert.deepEqual(batch.shape, [3, 3]);
  assert.deepEqual([...(batch.data as Int32Array)], [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const back = sliceBatch(batch, 1, 2);
  assert.deepEqual(back.shape, [2, 3]);
  assert.deepEqual([...(back.data as Int32Array)], [4, 5, 6, 7, 8, 9]);
  assert.equal((back.data as Int32Array).buffer, (batch.data as Int32Array).buffer);
  assert.throws(() => concatBatch([a, createTensor('x', 'INT32', [1, 2], [1, 2])]), { code: Errors.batchTensorMismatch.code });
});

test('config types map to wire datatypes', () => {
  assert.equal(fromConfigType('TYPE_FP32'), 'FP32');
  assert.equal(fromConfigType('TYPE_STRING'), 'BYTES');
  assert.equal(fromConfigType('TYPE_BYTES'), undefined);
  assert.equal(fromConfigType('FP32'), undefined);
  assert.equal(toConfigType('BYTES'), 'TYPE_STRING');
  assert.equal(toConfigType('BF16'), 'TYPE_BF16');
});
