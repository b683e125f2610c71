import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tensorDataJson, tensorFromJson } from '../../src/protocol/json-tensor.js';
import { halfToNumber, bf16ToNumber } from '../../src/tensor/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { Errors } from '../../src/errors.js';

test('nested and flat data give the same row-major tensor', () => {
  const a = tensorFromJson('x', 'INT32', [2, 2], [[1, 2], [3, 4]]);
  const b = tensorFromJson('x', 'INT32', [2, 2], [1, 2, 3, 4]);
  assert.deepEqual(Array.from(a.data as Int32Array), [1, 2, 3, 4]);
  assert.deepEqual(a.data, b.data);
});

test('every JSON datatype round-trips through tensorDataJson', () => {
  const cases: [string, unknown[]][] = [
    ['BOOL', [true, false]], ['UINT8', [0, 255]], ['UINT16', [0, 65535]], ['UINT32', [0, 4294967295]],
    ['UINT64', [0, 12]], ['INT8', [-128, 127]], ['INT16', [-32768, 32767]], ['INT32', [-5, 7]], ['INT64', [-3, 9]],
    ['FP32', [1.5, -2.25]], ['FP64', [0.1, 1e300]], ['BYTES', ['héllo', '']],
  ];
  for (const [dt, data] of cases) {
    const t = tensorFromJson('x', dt as never, [2], data);
    assert.deepEqual(JSON.parse(tensorDataJson(t)), data, dt);
  }
});

test('INT64 beyond 2^53 travels exactly as a decimal string in and as digits out', () => {
  const t = tensorFromJson('x', 'INT64', [1], ['9007199254740993']);
  assert.equal((t.data as BigInt64Array)[0], 9007199254740993n);
  assert.equal(tensorDataJson(t), '[9007199254740993]');
});

test('bad elements name the tensor, index and problem', () => {
  assert.throws(() => tensorFromJson('x', 'FP32', [2], [1, 'a']), { code: Errors.tensorElementInvalid.code });
  assert.throws(() => tensorFromJson('x', 'INT8', [1], [300]), { code: Errors.tensorElementRange.code });
  assert.throws(() => tensorFromJson('x', 'INT32', [1], [1.5]), { code: Errors.tensorElementInvalid.code });
  assert.throws(() => tensorFromJson('x', 'BOOL', [1], [1]), { code: Errors.tensorElementInvalid.code });
  assert.throws(() => tensorFromJson('x', 'BYTES', [1], [5]), { code: Errors.tensorElementInvalid.code });
  assert.throws(() => tensorFromJson('x', 'FP16', [1], [1]), { code: Errors.tensorJsonDatatype.code });
  assert.throws(() => tensorFromJson('x', 'FP32', [3], [1, 2]), { code: Errors.tensorDataCount.code, message: /^Failed to parse 'data' field: shape does not match true shape; / });
  assert.throws(() => tensorFromJson('x', 'FP32', [1], [1, 2]), { code: Errors.tensorDataCount.code, message: /^Unable to parse 'data': Shape does not match true shape of 'data' field; / });
  assert.throws(() => tensorFromJson('x', 'UINT64', [1], [-1]), { code: Errors.tensorElementRange.code });
  assert.throws(() => tensorFromJson('x', 'FP32', [1], 5), { code: Errors.tensorDataNotArray.code });
});

test('non-finite floats become null; FP16/BF16 outputs widen exactly', () => {
  const t = createTensor('y', 'FP32', [3], [NaN, Infinity, 1]);
  assert.equal(tensorDataJson(t), '[null,null,1]');
  assert.equal(halfToNumber(0x3c00), 1);
  assert.equal(halfToNumber(0xc000), -2);
  assert.equal(halfToNumber(0x0001), 2 ** -24);
  assert.equal(bf16ToNumber(0x3fc0), 1.5);
  const h = createTensor('h', 'FP16', [2], new Uint16Array([0x3c00, 0x3800]));
  assert.equal(tensorDataJson(h), '[1,0.5]');
});
