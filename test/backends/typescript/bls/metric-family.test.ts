/**
 * The sandbox library cannot import the error catalog (it would be bundled into every script), so
 * the codes it raises are spelled out in its source: each must be a catalog code, so that
 * docs/errors.md (tied to the catalog) documents what a script can be thrown.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Errors } from '../../../../src/errors.js';

const BLS = new URL('../../../../backends/typescript/bls/', import.meta.url);

test('every TRB_ code the sandbox library names is a catalog code', () => {
  const catalog = new Set(Object.values(Errors).map((d) => d.code));
  const named = new Map<string, string>();
  for (const file of readdirSync(BLS).filter((f) => f.endsWith('.ts'))) {
    for (const m of readFileSync(new URL(file, BLS), 'utf8').matchAll(/\bTRB_[A-Z0-9_]+/g)) named.set(m[0], file);
  }
  assert.ok(named.has('TRB_SCRIPT_METRIC_UNSUPPORTED') && named.has('TRB_SCRIPT_METRIC_INVALID'), [...named.keys()].join(', '));
  assert.deepEqual([...named].filter(([code]) => !catalog.has(code)), []);
});
