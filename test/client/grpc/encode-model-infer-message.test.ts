import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeModelInferMessage } from '../../../src/client/index.js';
import { decodeInferRequest } from '../../../src/protocol/grpc/decode-infer-request.js';
import { inferRequestFromProto } from '../../../src/protocol/grpc/index.js';
import { createTensor } from '../../../src/tensor/index.js';

test('one gRPC message: an uncompressed flag, the length, then a request the server decodes as sent', () => {
  const x = createTensor('X', 'FP32', [1, 3], [1.5, -2, 3]);
  const frame = Buffer.from(encodeModelInferMessage('m', [x], { version: '2', parameters: { k: 'v' } }));
  assert.equal(frame[0], 0, 'not compressed');
  assert.equal(frame.readUInt32BE(1), frame.length - 5, 'the prefix gives the message length');
  const { request } = inferRequestFromProto(decodeInferRequest(frame.subarray(5)));
  assert.equal(request.model, 'm');
  assert.equal(request.version, '2');
  assert.equal(request.parameters?.k, 'v');
  assert.deepEqual(request.inputs.map((t) => [t.name, t.datatype, t.shape, [...(t.data as Float32Array)]]), [['X', 'FP32', [1, 3], [1.5, -2, 3]]]);
});
