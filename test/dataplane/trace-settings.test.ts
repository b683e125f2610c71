import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTraceSettings, TRACE_DEFAULTS } from '../../src/dataplane/index.js';
import { Errors } from '../../src/errors.js';

const invalid = (e: unknown) => Errors.traceSettingInvalid.is(e);

test('values: HTTP JSON forms and gRPC one-element lists give the same stored value', () => {
  const s = createTraceSettings();
  assert.equal(s.update(undefined, { trace_rate: 5 }).trace_rate, '5');
  assert.equal(s.update(undefined, { trace_rate: ['6'] }).trace_rate, '6');
  assert.equal(s.update(undefined, { trace_count: '-1' }).trace_count, '-1');
  assert.deepEqual(s.update(undefined, { trace_level: 'TENSORS' }).trace_level, ['TENSORS']);
  assert.deepEqual(s.update(undefined, { trace_level: ['TIMESTAMPS', 'TENSORS'] }).trace_level, ['TIMESTAMPS', 'TENSORS']);
});

test('refusals: OFF with other levels, a list for a one-value setting, numbers out of range, unknown keys and modes', () => {
  const s = createTraceSettings();
  assert.throws(() => s.update(undefined, { trace_level: ['OFF', 'TIMESTAMPS'] }), invalid);
  assert.throws(() => s.update(undefined, { trace_level: [] }), invalid);
  assert.throws(() => s.update(undefined, { trace_rate: ['1', '2'] }), invalid);
  assert.throws(() => s.update(undefined, { trace_rate: '-1' }), invalid);
  assert.throws(() => s.update(undefined, { trace_count: '-2' }), invalid);
  assert.throws(() => s.update(undefined, { log_frequency: 1.5 }), invalid);
  assert.throws(() => s.update(undefined, { trace_file: 3 }), invalid);
  assert.throws(() => s.update(undefined, { trace_mode: 'zipkin' }), invalid);
  assert.throws(() => s.update(undefined, { colour: 'red' }), (e) => Errors.traceSettingUnknown.is(e));
  assert.throws(() => s.update(undefined, { colour: null }), (e) => Errors.traceSettingUnknown.is(e));
  assert.deepEqual(s.get(), { ...TRACE_DEFAULTS });
});

test('null: a model falls back to the global value, the global setting to its default', () => {
  const s = createTraceSettings();
  s.update(undefined, { trace_rate: '10' });
  assert.equal(s.update('m', { trace_rate: '20' }).trace_rate, '20');
  assert.equal(s.get().trace_rate, '10');
  assert.equal(s.update('m', { trace_rate: null }).trace_rate, '10');
  assert.equal(s.update(undefined, { trace_rate: null }).trace_rate, TRACE_DEFAULTS.trace_rate);
  assert.equal(s.get('m').trace_rate, TRACE_DEFAULTS.trace_rate);
});
