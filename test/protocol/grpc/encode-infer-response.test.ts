import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeInferResponse, encodeStreamInferResponse, inferResponseToProto } from '../../../src/protocol/grpc/index.js';
import { loadProtos } from '../../../src/frontend/grpc/load-protos.js';
import { createTensor } from '../../../src/tensor/index.js';

const service = loadProtos()['inference.GRPCInferenceService'] as Record<string, any>;

const response = inferResponseToProto({
  model: 'mödel', version: '3', id: 'r-1', final: true,
  parameters: { s: 'x', i: -7, big: 2n ** 64n - 1n, neg: -(2n ** 63n), d: 0.25, b: true, f: false, z: 0 },
  outputs: [
    createTensor('A', 'FP32', [2, 3], [1, 2, 3, 4, 5, 6]),
    createTensor('B', 'BYTES', [0], []),
    createTensor('C', 'INT64', [300, 1], Array.from({ length: 300 }, (_, i) => BigInt(i) - 150n)),
  ],
}, { finalFlag: false });

test('the hand encoder writes what the generic decoder reads back', () => {
  const fast = service.ModelInfer.responseDeserialize(encodeInferResponse(response));
  const generic = service.ModelInfer.responseDeserialize(service.ModelInfer.responseSerialize(response));
  assert.deepEqual(fast, generic);
  assert.equal(fast.model_name, 'mödel');
  assert.equal(fast.parameters.big.uint64_param, '18446744073709551615');
  assert.equal(fast.parameters.neg.int64_param, '-9223372036854775808');
  assert.equal(fast.parameters.i.int64_param, '-7');
  assert.equal(fast.parameters.triton_final_response.bool_param, false);
  assert.deepEqual(fast.outputs[2].shape, ['300', '1']);
  assert.equal(fast.raw_output_contents[2].length, 2400);
});

test('stream responses: with and without an error, with and without a response', () => {
  for (const m of [
    { error_message: '', infer_response: response },
    { error_message: "model 'x': bad ✗", infer_response: { model_name: 'x', model_version: '', id: 'q', parameters: {}, outputs: [], raw_output_contents: [] } },
    { error_message: 'only', infer_response: null },
  ]) {
    const fast = service.ModelStreamInfer.responseDeserialize(encodeStreamInferResponse(m));
    const generic = service.ModelStreamInfer.responseDeserialize(service.ModelStreamInfer.responseSerialize(m));
    assert.deepEqual(fast, generic);
  }
});
