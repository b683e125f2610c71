import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Errors, TributaryError, toTributaryError } from '../src/errors.js';

const KINDS = new Set(['UNKNOWN', 'INTERNAL', 'NOT_FOUND', 'INVALID_ARG', 'UNAVAILABLE', 'UNSUPPORTED', 'ALREADY_EXISTS', 'CANCELLED']);

test('every catalog entry has a unique TRB_ code and a Triton kind', () => {
  const codes = new Set<string>();
  for (const [key, def] of Object.entries(Errors)) {
    assert.match(def.code, /^TRB_[A-Z_]+$/, key);
    assert.ok(KINDS.has(def.kind), `${key}: ${def.kind}`);
    assert.ok(!codes.has(def.code), `duplicate code ${def.code}`);
    codes.add(def.code);
  }
});

test('errors carry code, kind and a message naming the model', () => {
  const e = Errors.modelNotFound('simple');
  assert.ok(e instanceof TributaryError);
  assert.equal(e.kind, 'NOT_FOUND');
  assert.match(e.message, /'simple'/);
  assert.ok(Errors.modelNotFound.is(e));
  assert.ok(!Errors.queueFull.is(e));
  assert.equal(Errors.payloadTooLarge('too big').httpStatus, 413);
  assert.match(e.withContext("pipeline 'p', step 's'").message, /^pipeline 'p', step 's': /);
});

test('unknown throws become INTERNAL with the cause kept', () => {
  const cause = new RangeError('boom');
  const e = toTributaryError(cause);
  assert.equal(e.kind, 'INTERNAL');
  assert.equal(e.cause, cause);
  assert.equal(toTributaryError(e), e);
});

test('src/ and backends/ raise specific catalog entries, not the open-message ones', () => {
  // TRB_INTERNAL stays for wrapping an unknown fault (a framework error whose text is all we have).
  const open = /Errors\.(badRequest|invalidArg|tensorSize|notFound|unsupported|unavailable|alreadyExists|payloadTooLarge)\(/;
  const root = fileURLToPath(new URL('..', import.meta.url));
  const hits: string[] = [];
  for (const dir of ['src', 'backends']) {
    for (const file of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const text = readFileSync(join(root, dir, file), 'utf8');
      text.split('\n').forEach((line, i) => { if (open.test(line)) hits.push(`${dir}/${file}:${i + 1}`); });
    }
  }
  assert.deepEqual(hits, []);
});
