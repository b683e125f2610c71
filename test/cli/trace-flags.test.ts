import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTelemetryFromFlags, traceSettingsFromFlags } from '../../src/cli/trace-flags.js';
import { Errors } from '../../src/errors.js';

test('--trace-config entries become trace settings; levels add up; they win over the deprecated flags', () => {
  assert.deepEqual(traceSettingsFromFlags({
    'trace-config': ['triton,file=/tmp/t.json', 'triton,log-frequency=50', 'rate=100', 'level=TIMESTAMPS', 'level=TENSORS', 'count=7', 'mode=triton'],
    'trace-rate': '3', 'trace-level': 'OFF',
  }), { trace_file: '/tmp/t.json', log_frequency: '50', trace_rate: '100', trace_level: ['TIMESTAMPS', 'TENSORS'], trace_count: '7', trace_mode: 'triton' });
  assert.deepEqual(traceSettingsFromFlags({ 'trace-file': '/tmp/x', 'trace-level': ['TIMESTAMPS'], 'trace-rate': '1', 'trace-count': '-1', 'trace-log-frequency': '0' }),
    { trace_file: '/tmp/x', trace_level: ['TIMESTAMPS'], trace_rate: '1', trace_count: '-1', log_frequency: '0' });
  assert.deepEqual(traceSettingsFromFlags({}), {});
});

test('a malformed entry, an unknown setting and a bad value are refused naming the flag', () => {
  for (const entry of ['rate', 'triton,rate=1', 'file=/tmp/x', 'verbose=1', 'opentelemetry,file=/tmp/x']) {
    assert.throws(() => traceSettingsFromFlags({ 'trace-config': [entry] }), (e) => Errors.cliFlagExpects.is(e) && /--trace-config/.test((e as Error).message), entry);
  }
  assert.throws(() => traceSettingsFromFlags({ 'trace-config': ['level=LOUD'] }), (e) => Errors.traceSettingInvalid.is(e));
  assert.throws(() => traceSettingsFromFlags({ 'trace-config': ['level=OFF', 'level=TIMESTAMPS'] }), (e) => Errors.traceSettingInvalid.is(e));
  assert.throws(() => traceSettingsFromFlags({ 'trace-config': ['count=-2'] }), (e) => Errors.traceSettingInvalid.is(e));
});

test('opentelemetry entries set up the exporter: url, resource key=value pairs, batch bounds; triton mode needs none', () => {
  const f = { 'trace-config': ['mode=opentelemetry', 'level=TIMESTAMPS', 'opentelemetry,url=http://127.0.0.1:4318/v1/traces', 'opentelemetry,resource=service.name=ocr', 'opentelemetry,resource=env=test', 'opentelemetry,bsp_max_queue_size=64', 'opentelemetry,bsp_schedule_delay=100'] };
  assert.deepEqual(traceSettingsFromFlags(f), { trace_mode: 'opentelemetry', trace_level: ['TIMESTAMPS'] });
  assert.deepEqual(openTelemetryFromFlags(f), { url: 'http://127.0.0.1:4318/v1/traces', resource: { 'service.name': 'ocr', env: 'test' }, bspMaxQueueSize: 64, bspScheduleDelayMs: 100 });
  assert.equal(openTelemetryFromFlags({ 'trace-config': ['mode=opentelemetry'] })?.url, 'http://localhost:4318/v1/traces');
  assert.equal(openTelemetryFromFlags({ 'trace-config': ['mode=triton', 'triton,file=/tmp/t.json'] }), undefined);
  assert.throws(() => openTelemetryFromFlags({ 'trace-config': ['opentelemetry,resource=novalue'] }), (e) => Errors.cliFlagExpects.is(e));
  assert.throws(() => openTelemetryFromFlags({ 'trace-config': ['opentelemetry,bsp_max_queue_size=0'] }), (e) => Errors.cliFlagExpects.is(e));
});
