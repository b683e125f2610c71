import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parameterFromProto, parameterToProto } from '../../../src/protocol/grpc/index.js';

test('InferParameter values map to plain values and back without losing 64-bit precision', () => {
  assert.equal(parameterFromProto({ parameter_choice: 'bool_param', bool_param: true }), true);
  assert.equal(parameterFromProto({ parameter_choice: 'int64_param', int64_param: '-42' }), -42);
  assert.equal(parameterFromProto({ parameter_choice: 'int64_param', int64_param: '-9223372036854775808' }), -9223372036854775808n);
  assert.equal(parameterFromProto({ parameter_choice: 'uint64_param', uint64_param: '18446744073709551615' }), 18446744073709551615n);
  assert.equal(parameterFromProto({ parameter_choice: 'double_param', double_param: 0.25 }), 0.25);
  assert.equal(parameterFromProto({ parameter_choice: 'string_param', string_param: 's' }), 's');
  assert.equal(parameterFromProto({}), undefined);

  assert.deepEqual(parameterToProto(true), { bool_param: true });
  assert.deepEqual(parameterToProto(7), { int64_param: 7 });
  assert.deepEqual(parameterToProto(0.5), { double_param: 0.5 });
  assert.deepEqual(parameterToProto('x'), { string_param: 'x' });
  assert.deepEqual(parameterToProto(-5n), { int64_param: '-5' });
  assert.deepEqual(parameterToProto(2n ** 64n - 1n), { uint64_param: '18446744073709551615' });
});
