import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sandboxOptions } from '../../../backends/typescript/sandbox-options.js';
import { parseConfigText } from '../../../src/config/index.js';

const options = (...lines: string[]) =>
  sandboxOptions(parseConfigText(['name: "m"', 'backend: "typescript"', 'max_batch_size: 0', ...lines].join('\n'), 'config.pbtxt', 'pbtxt').config);

test('fast_path_ms: 1 by default, 0 for sequence and decoupled models (their stream runs on past execute), a set value wins', () => {
  assert.equal(options().fastPathMs, 1);
  assert.equal(options('sequence_batching { }').fastPathMs, 0);
  assert.equal(options('model_transaction_policy { decoupled: true }').fastPathMs, 0);
  assert.equal(options('model_transaction_policy { decoupled: true }', 'parameters { key: "fast_path_ms" value: { string_value: "2" } }').fastPathMs, 2);
});

test('ready_timeout_ms: 1000 by default, at least 1', () => {
  assert.equal(options().readyTimeoutMs, 1000);
  assert.equal(options('parameters { key: "ready_timeout_ms" value: { string_value: "250" } }').readyTimeoutMs, 250);
  assert.throws(() => options('parameters { key: "ready_timeout_ms" value: { string_value: "0" } }'), /parameter ready_timeout_ms must be at least 1, got 0/);
});
