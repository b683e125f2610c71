import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headerMatches, parseRestrictions } from '../../../src/frontend/restrict/index.js';

const r = parseRestrictions('http-restricted-api', ['health:k=s3cret']).get('health')!;

test('only the exact value, given once, matches', () => {
  assert.equal(headerMatches(r, 's3cret'), true);
  assert.equal(headerMatches(r, Buffer.from('s3cret')), true, 'gRPC -bin metadata arrives as bytes');
  assert.equal(headerMatches(r, ['s3cret']), true);
  for (const v of [undefined, '', 'S3CRET', 's3cre', 's3cret ', 's3cretX', 'xs3cret', 's3cret, s3cret']) {
    assert.equal(headerMatches(r, v), false, JSON.stringify(v));
  }
  assert.equal(headerMatches(r, ['s3cret', 's3cret']), false, 'a repeated header is refused');
  assert.equal(headerMatches(r, []), false);
});

test('values of any length (and many checks in a row) give stable answers', () => {
  const long = 'x'.repeat(16 * 1024);
  for (let i = 0; i < 1000; i++) {
    assert.equal(headerMatches(r, i % 2 ? long : 's3cret'), i % 2 === 0);
  }
});
