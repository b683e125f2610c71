import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StopScanner } from '../../../src/frontend/openai/stop-scanner.js';

/** Feed the pieces; the text let out, and whether a stop string ended it. */
function run(stops: string[], pieces: string[]): [string, boolean] {
  const s = new StopScanner(stops);
  let out = '';
  for (const p of pieces) {
    const r = s.push(p);
    out += r.text;
    if (r.stopped) return [out, true];
  }
  return [out + s.flush(), false];
}

test('without stop strings the text passes as it comes', () => {
  const s = new StopScanner([]);
  assert.deepEqual(s.push('abc'), { text: 'abc', stopped: false });
});

test('a stop string ends the text before it, within one piece or across pieces', () => {
  assert.deepEqual(run(['END'], ['hello END world']), ['hello ', true]);
  assert.deepEqual(run(['END'], ['hello E', 'N', 'D world']), ['hello ', true]);
  assert.deepEqual(run(['xyz', 'lo'], ['hel', 'lo xyz']), ['hel', true], 'the earliest stop string wins');
});

test('a tail that might start a stop string is held only until it is known not to', () => {
  const s = new StopScanner(['END']);
  assert.deepEqual(s.push('the E'), { text: 'the ', stopped: false });
  assert.deepEqual(s.push('Nx'), { text: 'ENx', stopped: false });
  assert.deepEqual(s.push('abcEN'), { text: 'abc', stopped: false });
  assert.equal(s.flush(), 'EN', 'at the end what was held goes out');
  assert.deepEqual(run(['END'], ['a', 'b', 'c']), ['abc', false]);
});
