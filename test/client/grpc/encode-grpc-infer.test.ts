import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeGrpcInfer } from '../../../src/client/grpc/encode-grpc-infer.js';
import { decodeGrpcInfer } from '../../../src/client/grpc/decode-grpc-infer.js';
import { inferenceServiceDefinition } from '../../../src/client/grpc/load-client-protos.js';
import { inferRequestFromProto, inferResponseToProto, type ModelInferRequestMsg, type ModelInferResponseMsg } from '../../../src/protocol/grpc/index.js';
import { createTensor } from '../../../src/tensor/index.js';

const infer = () => inferenceServiceDefinition().ModelInfer!;

test('a request survives protobuf encoding into the server decoder: raw contents, reserved fields, classification', () => {
  const x = createTensor('X', 'INT64', [2], [2n ** 62n, -1n]);
  const msg = encodeGrpcInfer('m', [x], {
    version: '2', id: 'r', priority: 1, timeoutUs: 10, sequence: { id: 2n ** 63n + 5n, end: true }, parameters: { k: 'v' },
    outputs: [{ name: 'Y', classification: 3 }],
  });
  assert.equal(msg.raw_input_contents![0]!.buffer, (x.data as BigInt64Array).buffer, 'no copy before protobuf');
  const wire = infer().requestSerialize(msg);
  const { request } = inferRequestFromProto(infer().requestDeserialize(wire) as ModelInferRequestMsg);
  assert.equal(request.model, 'm');
  assert.equal(request.version, '2');
  assert.equal(request.id, 'r');
  assert.deepEqual(Array.from(request.inputs[0]!.data as BigInt64Array), [2n ** 62n, -1n]);
  assert.deepEqual(request.sequence, { id: 2n ** 63n + 5n, start: false, end: true });
  assert.equal(request.priority, 1);
  assert.equal(request.timeoutUs, 10);
  assert.deepEqual(request.parameters, { k: 'v' });
  assert.deepEqual(request.outputs, [{ name: 'Y', parameters: { classification: 3 } }]);
});

test('a response decodes to views over the message, with int64 parameters exact', () => {
  const y = createTensor('Y', 'FP64', [1, 2], [0.5, -7]);
  const wire = infer().responseSerialize(inferResponseToProto(
    { model: 'm', version: '1', outputs: [y], parameters: { n: 2n ** 60n + 1n }, final: true }, { id: 'q', finalFlag: true }));
  const res = decodeGrpcInfer(infer().responseDeserialize(wire) as ModelInferResponseMsg);
  assert.deepEqual([res.modelName, res.modelVersion, res.id], ['m', '1', 'q']);
  assert.deepEqual(res.output('Y').shape, [1, 2]);
  assert.deepEqual(Array.from(res.output('Y').data as Float64Array), [0.5, -7]);
  assert.deepEqual(res.parameters, { n: 2n ** 60n + 1n }, 'stream bookkeeping (triton_final_response) is dropped');
});
