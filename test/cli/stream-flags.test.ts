import assert from 'node:assert/strict';
import { test } from 'node:test';
import { streamBudgetFromFlags } from '../../src/cli/stream-flags.js';
import { Errors } from '../../src/errors.js';

const MIB = 2 ** 20;

test('defaults: 2 MiB a stream, 256 MiB for the server', () => {
  assert.deepEqual({ ...streamBudgetFromFlags({}).limits }, { streamBytes: 2 * MIB, totalBytes: 256 * MIB });
});

test('--stream-buffer-bytes and --stream-buffer-total-bytes set the bounds', () => {
  const b = streamBudgetFromFlags({ 'stream-buffer-bytes': '524288', 'stream-buffer-total-bytes': String(8 * MIB) });
  assert.deepEqual({ ...b.limits }, { streamBytes: 512 * 1024, totalBytes: 8 * MIB });
  // A stream bound past the default total raises the total's default with it.
  assert.equal(streamBudgetFromFlags({ 'stream-buffer-bytes': String(512 * MIB) }).limits.totalBytes, 512 * MIB);
});

test('a bound too small to hold a script\'s batch, or a total under one stream, stops the start', () => {
  const refused = (flags: Record<string, string>, text: RegExp) => assert.throws(() => streamBudgetFromFlags(flags), (e) => Errors.cliFlagExpects.is(e) && text.test((e as Error).message));
  refused({ 'stream-buffer-bytes': '65536' }, /--stream-buffer-bytes.*an integer >= 262144/);
  refused({ 'stream-buffer-bytes': '1mb' }, /--stream-buffer-bytes/);
  refused({ 'stream-buffer-bytes': String(4 * MIB), 'stream-buffer-total-bytes': String(MIB) }, /--stream-buffer-total-bytes.*an integer >= 4194304/);
});
