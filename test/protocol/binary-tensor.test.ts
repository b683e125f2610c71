import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BinaryCursor, binaryChunks, binaryInput, frameBinary, parseHeaderLength, rawBodyInput, splitInferBody,
} from '../../src/protocol/binary-tensor.js';
import { createTensor, tensorStrings } from '../../src/tensor/index.js';
import { Errors } from '../../src/errors.js';

test('binary inputs are views over the body, not copies', () => {
  const f = new Float32Array([1, 2, 3, 4]);
  const framed = frameBinary('{"a":1234567}', [createTensor('x', 'FP32', [4], f)]).body; // 13-byte header
  const { json, binary } = splitInferBody(framed, 13);
  assert.equal(Buffer.from(json).toString(), '{"a":1234567}');
  const aligned = Buffer.alloc(16 + 3);
  aligned.set(binary!, 0);
  const view = aligned.subarray(0, 16);
  const t = binaryInput('x', 'FP32', [4], view);
  assert.deepEqual(Array.from(t.data as Float32Array), [1, 2, 3, 4]);
  assert.equal((t.data as Float32Array).buffer, aligned.buffer, 'no copy for an aligned view');
});

test('header length validation', () => {
  assert.equal(parseHeaderLength(undefined), undefined);
  assert.equal(parseHeaderLength('12'), 12);
  assert.throws(() => parseHeaderLength('-3'), { code: Errors.binaryHeaderLengthInvalid.code });
  assert.throws(() => splitInferBody(new Uint8Array(4), 10), { code: Errors.binaryHeaderLengthTooLong.code });
});

test('the cursor checks sizes and unclaimed bytes', () => {
  const c = new BinaryCursor(new Uint8Array(10));
  assert.equal(c.take('a', 4).byteLength, 4);
  assert.throws(() => c.take('b', 8), { code: Errors.binaryDataShort.code });
  assert.throws(() => c.finish(), { code: Errors.binaryDataUnclaimed.code });
  assert.throws(() => new BinaryCursor(undefined).take('z', 4), { code: Errors.binaryDataMissing.code });
});

test('binary size must match datatype and shape', () => {
  assert.throws(() => binaryInput('x', 'FP32', [2, 2], new Uint8Array(12)),
    { code: Errors.binaryDataSize.code });
  const bytes = frameBinary('', [createTensor('s', 'BYTES', [2], ['ab', 'c'])]).body;
  assert.deepEqual(tensorStrings(binaryInput('s', 'BYTES', [2], bytes)), ['ab', 'c']);
  assert.throws(() => binaryInput('s', 'BYTES', [3], bytes), { code: Errors.tensorBytesCount.code, message: "expected 3 string elements for inference input 's', got 2" });
  assert.throws(() => binaryInput('s', 'BYTES', [1], bytes), { code: Errors.tensorBytesCount.code, message: /^unexpected number of string elements 2 for inference input 's', expecting 1; / });
  assert.throws(() => binaryInput('s', 'BYTES', [2], Buffer.concat([bytes, Buffer.alloc(2)])), { code: Errors.tensorBytesIndicator.code, message: /^incomplete string length indicator for inference input 's', expecting 4 bytes but only 2 bytes available/ });
  assert.throws(() => binaryInput('s', 'BYTES', [2], bytes.subarray(0, bytes.byteLength - 1)), { code: Errors.tensorBytesMalformed.code });
});

test('raw body: batch dim 1, one variable dim solved', () => {
  const body = new Uint8Array(new Float32Array([1, 2, 3, 4, 5, 6]).buffer);
  const t = rawBodyInput(body, 'm', [{ name: 'IN', datatype: 'FP32', shape: [-1, -1] }], 8);
  assert.deepEqual(t.shape, [1, 6]);
  const fixed = rawBodyInput(body, 'm', [{ name: 'IN', datatype: 'FP32', shape: [2, 3] }], 0);
  assert.deepEqual(fixed.shape, [2, 3]);
  assert.throws(() => rawBodyInput(body, 'm', [{ name: 'A', datatype: 'FP32', shape: [6] }, { name: 'B', datatype: 'FP32', shape: [6] }], 0),
    { code: Errors.rawBinaryInputCount.code });
  assert.throws(() => rawBodyInput(body, 'm', [{ name: 'IN', datatype: 'FP32', shape: [-1, -1] }], 0), { code: Errors.rawBinaryVariableDims.code });
  assert.throws(() => rawBodyInput(body.subarray(0, 6), 'm', [{ name: 'IN', datatype: 'FP32', shape: [-1] }], 0), { code: Errors.rawBinarySize.code });
  const s = rawBodyInput(Buffer.from('hello'), 'm', [{ name: 'S', datatype: 'BYTES', shape: [1] }], 0);
  assert.deepEqual(tensorStrings(s), ['hello']);
});

test('binaryChunks: the same bytes as frameBinary, with numeric tensors as views (no copy)', () => {
  const f = new Float32Array([1.5, -2, 3]);
  const tensors = [createTensor('x', 'FP32', [3], f), createTensor('s', 'BYTES', [2], ['ab', 'ünï'])];
  const header = '{"outputs":"ünï"}';
  const framed = frameBinary(header, tensors);
  const parts = binaryChunks(header, tensors);
  assert.equal(parts.headerLength, framed.headerLength);
  assert.equal(parts.byteLength, framed.body.byteLength);
  assert.deepEqual(Buffer.concat(parts.chunks), framed.body);
  assert.equal(parts.chunks[1]!.buffer, f.buffer, 'the FP32 chunk is a view over the tensor');
});
