import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Errors, TributaryError } from '../../src/errors.js';
import { grpcCodeOf, httpStatusOf, STATUS_TABLE } from '../../src/protocol/status-table.js';

test('HTTP status per kind follows Triton', () => {
  assert.equal(httpStatusOf(Errors.internal('x')), 500);
  assert.equal(httpStatusOf(Errors.modelNotFound('m')), 404);
  assert.equal(httpStatusOf(Errors.queueFull('m')), 503);
  assert.equal(httpStatusOf(Errors.unsupported('x')), 501);
  for (const k of ['UNKNOWN', 'INVALID_ARG', 'ALREADY_EXISTS', 'CANCELLED'] as const) {
    assert.equal(httpStatusOf(new TributaryError('X', k, 'm')), 400, k);
  }
});

test('an httpStatus override wins over the kind', () => {
  assert.equal(httpStatusOf(Errors.payloadTooLarge('too big')), 413);
});

test('unknown throws are INTERNAL', () => {
  assert.equal(httpStatusOf(new Error('boom')), 500);
  assert.equal(grpcCodeOf('boom'), 13);
});

test('gRPC codes per kind', () => {
  const expected = { INVALID_ARG: 3, NOT_FOUND: 5, UNAVAILABLE: 14, UNSUPPORTED: 12, INTERNAL: 13, ALREADY_EXISTS: 6, CANCELLED: 1, UNKNOWN: 2 };
  for (const [k, code] of Object.entries(expected)) {
    assert.equal(grpcCodeOf(new TributaryError('X', k as never, 'm')), code, k);
    assert.equal(STATUS_TABLE[k as keyof typeof STATUS_TABLE].grpc, code);
  }
});
