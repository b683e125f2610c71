/**
 * The instance pool's own bookkeeping: close() waits for every running batch (it counts batches
 * rather than keeping a promise each), for every caller at once, and returns at once when idle;
 * an instance that answers before execute() returns ends its batch at once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InstancePool } from '../../src/scheduler/instance-pool.js';
import { BatchRequest, toItem } from '../../src/scheduler/batch-request.js';
import { TestInstance, TestItem, flush } from './helpers.js';
import type { BackendInstance, BackendRequest, ExecuteTimings } from '../../src/backend/index.js';

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

/** An instance that answers (or throws) before execute() returns, with no promise. */
class SyncInstance implements BackendInstance {
  constructor(readonly act: (batch: readonly BackendRequest[]) => ExecuteTimings | void) {}
  execute(batch: readonly BackendRequest[]): ExecuteTimings | void {
    return this.act(batch);
  }
  async finalize(): Promise<void> {}
}

test('an instance that answers before execute() returns ends its batch at once: timings reported, instance free', () => {
  const timings: ExecuteTimings = { computeInputNs: 1, computeInferNs: 2, computeOutputNs: 3 };
  const ended: (ExecuteTimings | undefined)[] = [];
  const inst = new SyncInstance((batch) => {
    for (const r of batch) r.send({ outputs: [] }, true);
    return timings;
  });
  const p = new InstancePool([inst], { model: 'm', decoupled: false, hooks: { onBatchEnd: (_items, t) => { ended.push(t); } }, onFree: () => undefined });
  const item = new TestItem('x');
  p.run(0, [new BatchRequest(item, item.request, toItem, () => undefined)]);
  assert.deepEqual(ended, [timings], 'ended before run() returned');
  assert.ok(item.responded);
  assert.equal(p.freeCount, 1);
});

test('a synchronous execute() that throws, or returns without answering, fails its batch at once', () => {
  const thrown = new InstancePool([new SyncInstance(() => { throw new Error('backend exploded'); })], { model: 'm', decoupled: false, hooks: undefined, onFree: () => undefined });
  const a = new TestItem('a');
  thrown.run(0, [new BatchRequest(a, a.request, toItem, () => undefined)]);
  assert.equal(a.errorCode, 'TRB_BACKEND_FAILED');
  assert.equal(thrown.freeCount, 1);
  const silent = new InstancePool([new SyncInstance(() => undefined)], { model: 'm', decoupled: false, hooks: undefined, onFree: () => undefined });
  const b = new TestItem('b');
  silent.run(0, [new BatchRequest(b, b.request, toItem, () => undefined)]);
  assert.equal(b.errorCode, 'TRB_BACKEND_FAILED');
  assert.match(b.events[0]!.kind === 'error' ? b.events[0]!.error.message : '', /without responding/);
});
