/** `--capture-config KEY=VALUE`: the keys, their defaults and bounds, and the refusals. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CAPTURE_DEFAULTS, parseCaptureConfig } from '../../src/capture/index.js';
import { Errors } from '../../src/errors.js';

test('no entry is no capture; one sink with the defaults', () => {
  assert.equal(parseCaptureConfig([]), undefined);
  const s = parseCaptureConfig(['dir=/tmp/c'])!;
  assert.equal(s.dir, '/tmp/c');
  assert.equal(s.rate, 1);
  assert.equal(s.maxBytes, CAPTURE_DEFAULTS.maxBytes);
  assert.equal(s.models.size, 0);
});

test('every key is read, and a later entry wins', () => {
  const s = parseCaptureConfig([
    'url=http://127.0.0.1:9000/events', 'redis=127.0.0.1:6380', 'redis-stream=caps', 'redis-maxlen=50', 'rate=0.5', 'rate=0.01',
    'models=a, b', 'max-bytes=0', 'redact=TOKEN,SECRET', 'queue=9', 'queue-bytes=99', 'request-records=5', 'failures=0',
    'file-bytes=4096', 'files=2', 'source=/svc',
  ])!;
  assert.deepEqual({ ...s, models: [...s.models], redact: [...s.redact] }, {
    ...CAPTURE_DEFAULTS, url: 'http://127.0.0.1:9000/events', redis: { host: '127.0.0.1', port: 6380 }, redisStream: 'caps', redisMaxLen: 50,
    rate: 0.01, models: ['a', 'b'], maxBytes: 0, redact: ['TOKEN', 'SECRET'], queueRecords: 9, queueBytes: 99, requestRecords: 5,
    failures: 0, fileBytes: 4096, files: 2, source: '/svc',
  });
});

test('bad entries are refused naming the entry', () => {
  for (const bad of [['rate=2'], ['dir=/x', 'rate=-0.1'], ['dir=/x', 'colour=red'], ['dir=/x', 'queue=0'], ['url=ftp://x'], ['redis=nohost'], ['rate=1'], ['dir=/x', 'files=1.5'], ['dir']]) {
    assert.throws(() => parseCaptureConfig(bad), (e: unknown) => Errors.captureConfigInvalid.is(e), bad.join(' '));
  }
  assert.throws(() => parseCaptureConfig(['rate=1']), /name where records go/);
});
