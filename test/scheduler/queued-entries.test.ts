import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Errors, TributaryError } from '../../src/errors.js';
import { ItemList } from '../../src/scheduler/item-list.js';
import { ManualClock, QueuedEntries, QueuedEntry } from '../../src/scheduler/index.js';
import { TestItem } from './helpers.js';

function setup() {
  const clock = new ManualClock();
  const list = new ItemList<QueuedEntry>();
  const log: string[] = [];
  const entries = new QueuedEntries<QueuedEntry>({
    model: 'm',
    clock,
    unlink: (e) => {
      if (e.list !== (list as unknown as typeof e.list)) return false;
      list.remove(e);
      return true;
    },
    onDrop: (e) => log.push(`dropped ${(e.item as TestItem).label} (answered: ${e.item.done})`),
    afterDrop: (e) => log.push(`after ${(e.item as TestItem).label} (answered: ${e.item.done})`),
  });
  const queue = (label: string) => {
    const e = new QueuedEntry(new TestItem(label));
    list.push(e);
    entries.watch(e);
    return e;
  };
  return { clock, list, log, entries, queue };
}

test('an abort drops the entry with CANCELLED, or with the signal\'s catalog reason (a deadline abort)', () => {
  const { entries, queue, list, log } = setup();
  const a = queue('a');
  const b = queue('b');
  (a.item as TestItem).abort.abort();
  (b.item as TestItem).abort.abort(Errors.timeout('m'));
  assert.equal((a.item as TestItem).errorCode, 'TRB_CANCELLED');
  assert.equal((b.item as TestItem).errorCode, 'TRB_TIMEOUT');
  assert.equal(list.size, 0);
  assert.deepEqual(log, ['dropped a (answered: false)', 'after a (answered: true)', 'dropped b (answered: false)', 'after b (answered: true)']);
  assert.equal(entries.drop(a, Errors.timeout('m')), false, 'a second drop is a no-op');
});

test('the timer fires at its clock time; leaving clears timer and abort hook, and later drops do nothing', () => {
  const { clock, entries, queue, list, log } = setup();
  const t = queue('t');
  entries.arm(t, 5, () => entries.drop(t, Errors.timeout('m')));
  clock.advance(4);
  assert.equal(t.item.done, false);
  clock.advance(1);
  assert.equal((t.item as TestItem).errorCode, 'TRB_TIMEOUT');

  const l = queue('l');
  entries.arm(l, 10, () => entries.drop(l, Errors.timeout('m')));
  assert.equal(entries.leave(l), true);
  assert.equal(entries.leave(l), false);
  assert.equal(clock.pendingTimers(), 0);
  (l.item as TestItem).abort.abort();
  assert.equal(l.item.done, false, 'an entry that left (to run) is not failed by the queue');
  assert.equal(list.size, 0);
  assert.deepEqual(log, ['dropped t (answered: false)', 'after t (answered: true)']);
});

test('drop fails the item with the given catalog error', () => {
  const { entries, queue } = setup();
  const e = queue('s');
  const err = Errors.unavailable('stopping');
  assert.equal(entries.drop(e, err), true);
  const got = (e.item as TestItem).events[0];
  assert.ok(got?.kind === 'error' && got.error instanceof TributaryError && got.error === err);
});
