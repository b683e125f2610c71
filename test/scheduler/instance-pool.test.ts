/**
 * The instance pool's own bookkeeping: close() waits for every running batch (it counts batches
 * rather than keeping a promise each), for every caller at once, and returns at once when idle.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InstancePool } from '../../src/scheduler/instance-pool.js';
import { BatchRequest, toItem } from '../../src/scheduler/batch-request.js';
import { TestInstance, TestItem, flush } from './helpers.js';

function pool(instances: TestInstance[]) {
  let freed = 0;
  const p = new InstancePool(instances, { model: 'm', decoupled: false, hooks: undefined, onFree: () => { freed++; } });
  const run = (index: number, label: string) => {
    const item = new TestItem(label);
    p.run(index, [new BatchRequest(item, item.request, toItem, () => undefined)]);
    return item;
  };
  return { p, run, freed: () => freed };
}

test('close() resolves at once with nothing running', async () => {
  const { p } = pool([new TestInstance()]);
  await p.close();
});

test('two close() calls both wait for the running batches, then both resolve', async () => {
  const a = new TestInstance(0);
  const b = new TestInstance(1);
  const { p, run, freed } = pool([a, b]);
  const first = run(0, 'first');
  const second = run(1, 'second');
  let closed = 0;
  const c1 = p.close().then(() => { closed++; });
  const c2 = p.close().then(() => { closed++; });
  await flush();
  assert.equal(closed, 0, 'both batches still run');
  await a.complete();
  assert.equal(closed, 0, 'one batch still runs');
  await b.complete();
  await Promise.all([c1, c2]);
  assert.equal(closed, 2);
  assert.ok(first.responded && second.responded);
  assert.equal(freed(), 2);
  assert.equal(p.freeCount, 2);
});

test('a batch that fails is counted out too', async () => {
  const inst = new TestInstance();
  const { p, run } = pool([inst]);
  const item = run(0, 'x');
  const closing = p.close();
  await inst.rejectBatch(new Error('backend exploded'));
  await closing;
  assert.equal(item.errorCode, 'TRB_BACKEND_FAILED');
});
