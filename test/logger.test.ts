/** rateLimited: one line per interval goes through; the next one says how many were left out. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rateLimited } from '../src/logger.js';

test('rateLimited writes the first line, counts the rest of the interval, and reports the count with the next line', () => {
  let now = 1_000;
  const written: string[] = [];
  const log = rateLimited((m) => written.push(m), 10_000, () => now);
  log('a');
  now += 9_999;
  log('b');
  log('c');
  assert.deepEqual(written, ['a']);
  now += 1; // 10 s after 'a'
  log('d');
  assert.deepEqual(written, ['a', 'd (2 more like it left out since the last line; one line per 10 s)']);
  now += 10_000;
  log('e');
  assert.deepEqual(written.at(-1), 'e', 'nothing was left out since d');
});
