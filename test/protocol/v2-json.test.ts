import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodeInferRequest, decodeInferResponse, encodeInferRequest, encodeInferResponse,
} from '../../src/protocol/v2-json.js';
import { splitInferBody } from '../../src/protocol/binary-tensor.js';
import { Errors } from '../../src/errors.js';
import { createTensor, tensorStrings, type Tensor } from '../../src/tensor/index.js';

const ctx = { model: 'm' };

test('decodes inputs, outputs, id and reserved parameters into request fields', () => {
  const { request, encoding } = decodeInferRequest({
    id: 'r1',
    parameters: { sequence_id: 42, sequence_start: true, priority: 2, timeout: 1000, binary_data_output: true, custom: 'x' },
    inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 2], data: [[1, 2]] }],
    outputs: [{ name: 'OUT', parameters: { binary_data: false, classification: 2 } }],
  }, { model: 'm', version: '3' });
  assert.equal(request.model, 'm');
  assert.equal(request.version, '3');
  assert.equal(request.id, 'r1');
  assert.deepEqual(request.sequence, { id: 42n, start: true, end: false });
  assert.equal(request.priority, 2);
  assert.equal(request.timeoutUs, 1000);
  assert.deepEqual(request.parameters, { custom: 'x' });
  assert.deepEqual(request.outputs, [{ name: 'OUT', parameters: { binary_data: false, classification: 2 } }]);
  assert.deepEqual(encoding, { binaryDefault: true, binary: { OUT: false } });
  assert.deepEqual(Array.from(request.inputs[0]!.data as Float32Array), [1, 2]);
});

test('string sequence ids are kept as strings', () => {
  const { request } = decodeInferRequest({ parameters: { sequence_id: 'abc', sequence_end: true }, inputs: [] }, ctx);
  assert.deepEqual(request.sequence, { id: 'abc', start: false, end: true });
});

test('every datatype survives client encode -> server decode, JSON and binary', () => {
  const tensors: Tensor[] = [
    createTensor('b', 'BOOL', [2], [true, false]),
    createTensor('u8', 'UINT8', [2], [1, 255]), createTensor('u16', 'UINT16', [1], [65535]),
    createTensor('u32', 'UINT32', [1], [4e9]), createTensor('u64', 'UINT64', [1], [2n ** 63n]),
    createTensor('i8', 'INT8', [1], [-7]), createTensor('i16', 'INT16', [1], [-300]),
    createTensor('i32', 'INT32', [1], [-70000]), createTensor('i64', 'INT64', [1], [-(2n ** 62n)]),
    createTensor('f32', 'FP32', [2], [0.5, -1]), createTensor('f64', 'FP64', [1], [Math.PI]),
    createTensor('s', 'BYTES', [2], ['a', 'ünï']),
  ];
  const half = [createTensor('f16', 'FP16', [1], new Uint16Array([0x3c00])), createTensor('bf', 'BF16', [1], new Uint16Array([0x3fc0]))];
  for (const binary of [false, true]) {
    const list = binary ? [...tensors, ...half] : tensors;
    const enc = encodeInferRequest({ inputs: list }, { binary });
    const body = typeof enc.body === 'string' ? Buffer.from(enc.body) : enc.body;
    const { json, binary: bin } = splitInferBody(body, enc.headerLength);
    const { request } = decodeInferRequest(JSON.parse(Buffer.from(json).toString()), { model: 'm', binary: bin });
    for (const [i, t] of list.entries()) {
      const got = request.inputs[i]!;
      assert.equal(got.datatype, t.datatype);
      if (t.datatype === 'BYTES') assert.deepEqual(tensorStrings(got), tensorStrings(t));
      else assert.deepEqual(Array.from(got.data as ArrayLike<unknown>), Array.from(t.data as ArrayLike<unknown>), `${t.name} binary=${binary}`);
    }
  }
});

test('responses: JSON by default, binary per output or by default, decoded back', () => {
  const res = {
    model: 'm', version: '1', id: 'q', final: true,
    outputs: [createTensor('A', 'FP32', [2], [1, 2]), createTensor('B', 'BYTES', [1], ['x'])],
  };
  const plain = encodeInferResponse(res, { binaryDefault: false });
  assert.equal(plain.headerLength, undefined);
  assert.deepEqual(JSON.parse(plain.body as string), {
    model_name: 'm', model_version: '1', id: 'q',
    outputs: [{ name: 'A', datatype: 'FP32', shape: [2], data: [1, 2] }, { name: 'B', datatype: 'BYTES', shape: [1], data: ['x'] }],
  });
  const mixed = encodeInferResponse(res, { binaryDefault: false, binary: { A: true } });
  const header = JSON.parse((mixed.body as Buffer).subarray(0, mixed.headerLength).toString());
  assert.deepEqual(header.outputs[0].parameters, { binary_data_size: 8 });
  assert.deepEqual(header.outputs[1].data, ['x']);
  const all = encodeInferResponse(res, { binaryDefault: true });
  const back = decodeInferResponse(all.body as Buffer, all.headerLength);
  assert.deepEqual(Array.from(back.outputs[0]!.data as Float32Array), [1, 2]);
  assert.deepEqual(tensorStrings(back.outputs[1]!), ['x']);
});

test('shared-memory outputs are written to the region and carry no data', () => {
  const writes: [string, number, number[]][] = [];
  const shm = { read: () => new Uint8Array(), write: (r: string, o: number, b: Uint8Array) => { writes.push([r, o, Array.from(b)]); } };
  const res = { model: 'm', version: '1', final: true, outputs: [createTensor('A', 'UINT8', [2], [7, 8])] };
  const out = encodeInferResponse(res, { binaryDefault: false, sharedMemory: { A: { region: 'r', offset: 4, byteSize: 2 } } }, shm);
  assert.deepEqual(writes, [['r', 4, [7, 8]]]);
  assert.deepEqual(JSON.parse(out.body as string).outputs[0].parameters, { shared_memory_region: 'r', shared_memory_byte_size: 2 });
  assert.throws(() => encodeInferResponse(res, { binaryDefault: false, sharedMemory: { A: { region: 'r', offset: 0, byteSize: 1 } } }, shm),
    { code: Errors.outputShmTooSmall.code });
});

test('inputs can come from shared memory; without it the region is unknown, and the error says how to enable it', () => {
  const shm = { read: (_r: string, o: number, n: number) => new Uint8Array([1, 2, 3, 4, 5, 6]).subarray(o, o + n), write() {} };
  const json = { inputs: [{ name: 'I', datatype: 'UINT8', shape: [2], parameters: { shared_memory_region: 'r', shared_memory_offset: 2, shared_memory_byte_size: 2 } }] };
  const { request } = decodeInferRequest(json, { model: 'm', sharedMemory: shm });
  assert.deepEqual(Array.from(request.inputs[0]!.data as Uint8Array), [3, 4]);
  assert.throws(() => decodeInferRequest(json, ctx), /^TributaryError: Unable to find shared memory region: 'r'; client shared memory is disabled.*--allow-client-shm=true/);
});

test('malformed requests get their own error codes', () => {
  const cases: [unknown, { readonly code: string }][] = [
    [[], Errors.requestBodyNotObject],
    [{}, Errors.requestInputsMissing],
    [{ inputs: [5] }, Errors.requestInputInvalid],
    [{ inputs: [{ datatype: 'FP32', shape: [1], data: [1] }] }, Errors.requestInputNameMissing],
    [{ inputs: [{ name: 'x', datatype: 'FP33', shape: [1], data: [1] }] }, Errors.badDatatype],
    [{ inputs: [{ name: 'x', shape: [1], data: [1] }] }, Errors.tensorDatatypeMissing],
    [{ inputs: [{ name: 'x', datatype: 'FP32', data: [1] }] }, Errors.tensorShapeMissing],
    [{ inputs: [{ name: 'x', datatype: 'FP32', shape: [-1], data: [1] }] }, Errors.tensorShapeNegative],
    [{ inputs: [{ name: 'x', datatype: 'FP32', shape: [1.5], data: [1] }] }, Errors.tensorShapeInvalid],
    [{ inputs: [{ name: 'x', datatype: 'FP32', shape: [1] }] }, Errors.tensorDataMissing],
    [{ inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1], parameters: { binary_data_size: 4 } }] }, Errors.tensorDataSources],
    [{ inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1] }, { name: 'x', datatype: 'FP32', shape: [1], data: [1] }] }, Errors.inputDuplicate],
    // Among more inputs than a scan covers (a Set then).
    [{ inputs: [...Array.from({ length: 20 }, (_, i) => ({ name: `x${i}`, datatype: 'FP32', shape: [1], data: [1] })), { name: 'x3', datatype: 'FP32', shape: [1], data: [1] }] }, Errors.inputDuplicate],
    [{ id: 5, inputs: [] }, Errors.requestIdInvalid],
    [{ inputs: [], parameters: { priority: -1 } }, Errors.requestParameterReserved],
    [{ inputs: [], parameters: { sequence_start: 'yes' } }, Errors.requestParameterReserved],
    [{ inputs: [], parameters: { x: { a: 1 } } }, Errors.requestParameterType],
    [{ inputs: [], parameters: { triton_enable_empty_final_response: true } }, Errors.requestParameterTriton],
    [{ inputs: [], outputs: 5 }, Errors.requestOutputsNotArray],
    [{ inputs: [], outputs: [{}] }, Errors.requestOutputInvalid],
    [{ inputs: [], outputs: [{ name: 'o', parameters: { binary_data: 1 } }] }, Errors.tensorParameterInvalid],
    [{ inputs: [], outputs: [{ name: 'o', parameters: { classification: -2 } }] }, Errors.tensorParameterInvalid],
    [{ inputs: [], outputs: [{ name: 'o', parameters: { classification: 2, shared_memory_region: 'r', shared_memory_byte_size: 8 } }] }, Errors.outputShmConflict],
    [{ inputs: [], outputs: [{ name: 'o', parameters: { binary_data: true, shared_memory_region: 'r', shared_memory_byte_size: 8 } }] }, Errors.outputShmConflict],
    [{ inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1], parameters: 3 }] }, Errors.requestParametersNotObject],
    [{ inputs: [], outputs: [{ name: 'o', parameters: { shared_memory_region: 'r' } }] }, Errors.tensorShmSizeMissing],
  ];
  const shm = { read: () => new Uint8Array(), write() {} };
  for (const [json, def] of cases) {
    assert.throws(() => decodeInferRequest(json, { ...ctx, sharedMemory: shm }), { code: def.code }, JSON.stringify(json));
  }
});
