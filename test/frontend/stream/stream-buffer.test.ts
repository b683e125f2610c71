import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MESSAGE_OVERHEAD, StreamBudget, StreamBuffer } from '../../../src/frontend/stream/index.js';

const KIB = 1024;
/** A message whose account (with its overhead) is `kib` KiB. */
const msg = (kib: number) => kib * KIB - MESSAGE_OVERHEAD;

test('a stream pauses its producers at an eighth of its bound and resumes them at a sixteenth', async () => {
  const budget = new StreamBudget({ streamBytes: 128 * KIB, totalBytes: 1024 * KIB });
  const s = new StreamBuffer(budget, 'grpc');
  for (let i = 0; i < 15; i++) assert.equal(s.admit(msg(1)), true);
  assert.equal(s.ready, true, '15 KiB of a 128 KiB bound: still taking');
  s.admit(msg(1));
  assert.equal(s.ready, false, 'an eighth reached: paused');
  assert.equal(budget.figures.grpc.paused, 1);
  assert.equal(budget.figures.grpc.pauses, 1);
  let woken = 0;
  s.whenReady(() => woken++);
  for (let i = 0; i < 7; i++) s.release(msg(1));
  assert.equal(s.ready, false, '9 KiB left: above a sixteenth, still paused');
  assert.equal(woken, 0);
  s.release(msg(1));
  assert.equal(s.ready, true);
  assert.equal(woken, 1, 'woken once, at a sixteenth');
  assert.equal(budget.figures.grpc.paused, 0);
  assert.equal(s.bytes, 8 * KIB);
  assert.equal(budget.bytes, 8 * KIB);
  s.close();
  assert.equal(budget.bytes, 0, 'closing gives back what the stream held');
});

test('past its bound a stream refuses a message, except into an empty stream or when forced', () => {
  const budget = new StreamBudget({ streamBytes: 64 * KIB, totalBytes: 1024 * KIB });
  const s = new StreamBuffer(budget, 'sse');
  assert.equal(s.admit(msg(200)), true, 'one message alone goes, however large');
  assert.equal(s.admit(msg(1)), false);
  assert.deepEqual(s.overflowed(), { held: 200 * KIB, bound: 64 * KIB, flag: '--stream-buffer-bytes' });
  assert.equal(budget.figures.sse.overflows, 1);
  assert.equal(s.admit(msg(1), true), true, 'an error message is forced through');
  assert.equal(s.messages, 2);
  s.release(msg(200));
  s.release(msg(1));
  assert.equal(s.bytes, 0);
  assert.equal(s.admit(msg(60)), true);
  assert.equal(s.admit(msg(4)), true, 'exactly at the bound');
  assert.equal(s.admit(msg(1)), false);
  s.close();
  assert.equal(s.admit(msg(1)), false, 'a closed stream takes nothing');
  assert.equal(budget.bytes, 0);
});

test('the server total: from half of it a stream that holds anything pauses; past it, a message is refused', async () => {
  const budget = new StreamBudget({ streamBytes: 64 * KIB, totalBytes: 128 * KIB });
  const a = new StreamBuffer(budget, 'grpc');
  const b = new StreamBuffer(budget, 'sse');
  for (let i = 0; i < 4; i++) assert.equal(a.admit(msg(15)), true);
  assert.equal(budget.saturated, false);
  b.admit(msg(4));
  assert.equal(budget.saturated, true, '64 KiB of 128: saturated');
  assert.equal(b.ready, false, 'b holds something: it pauses although it is far from its own bound');
  let woken = 0;
  b.whenReady(() => woken++);
  const c = new StreamBuffer(budget, 'grpc');
  assert.equal(c.ready, true, 'an empty stream may still send one message');
  assert.equal(c.admit(msg(60)), true);
  assert.equal(c.admit(msg(5)), false, 'past its own bound');
  assert.equal(c.overflowed().flag, '--stream-buffer-bytes');
  assert.equal(a.admit(msg(3)), true, '127 KiB in all');
  assert.equal(b.admit(msg(2)), false, 'past the total');
  assert.deepEqual(b.overflowed(), { held: 127 * KIB, bound: 128 * KIB, flag: '--stream-buffer-total-bytes' });
  c.close();
  assert.equal(woken, 0, 'still above three eighths');
  a.release(msg(3));
  for (let i = 0; i < 2; i++) a.release(msg(15));
  assert.equal(budget.saturated, false);
  assert.equal(woken, 1, 'b is woken when the total falls to three eighths');
  a.close();
  b.close();
  assert.equal(budget.bytes, 0);
  assert.deepEqual(budget.figures.grpc.bytes + budget.figures.sse.bytes, 0);
});

test('closing a stream wakes its waiting producers (they find their request gone)', async () => {
  const budget = new StreamBudget({ streamBytes: 16 * KIB, totalBytes: 1024 * KIB });
  const s = new StreamBuffer(budget, 'grpc');
  s.admit(msg(8));
  let woken = 0;
  const forget = s.whenReady(() => woken++);
  s.whenReady(() => woken++);
  forget();
  s.close();
  assert.equal(woken, 1, 'a forgotten waiter is not called');
  assert.equal(s.ready, false);
  assert.equal(budget.figures.grpc.paused, 0);
  await new Promise<void>((resolve) => s.whenReady(resolve));
});
