import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CancelSource, type CancelSignal } from '../../src/inference/index.js';

test('CancelSource aborts once, with its reason, running each listener once', () => {
  const s = new CancelSource();
  const calls: string[] = [];
  const a = () => calls.push('a');
  const b = () => calls.push('b');
  s.addEventListener('abort', a);
  s.addEventListener('abort', b, { once: true });
  s.removeEventListener('abort', b);
  assert.equal(s.aborted, false);
  s.abort('why');
  s.abort('again');
  assert.equal(s.aborted, true);
  assert.equal(s.reason, 'why');
  assert.deepEqual(calls, ['a']);
  s.addEventListener('abort', () => calls.push('late')); // already aborted: never called
  assert.deepEqual(calls, ['a']);
});

test('a real AbortSignal satisfies the CancelSignal contract', () => {
  const c = new AbortController();
  const sig: CancelSignal = c.signal;
  let fired = 0;
  sig.addEventListener('abort', () => fired++, { once: true });
  c.abort();
  assert.equal(sig.aborted, true);
  assert.equal(fired, 1);
});

test('listeners run in the order they were added, however many were removed in between', () => {
  const s = new CancelSource();
  const calls: string[] = [];
  const l = (name: string) => (): void => { calls.push(name); };
  const a = l('a'), b = l('b'), c = l('c'), d = l('d'), e = l('e');
  s.addEventListener('abort', a);
  s.removeEventListener('abort', a); // the lone listener removed
  s.addEventListener('abort', b);
  s.addEventListener('abort', c); // a second one: both kept in order
  s.removeEventListener('abort', b);
  s.addEventListener('abort', d);
  s.addEventListener('abort', e);
  s.removeEventListener('abort', e);
  s.removeEventListener('abort', a); // not there: nothing happens
  s.abort();
  assert.deepEqual(calls, ['c', 'd']);
});
