import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelConfig } from '../../src/config/index.js';
import { ManualClock, createScheduler, type Scheduler } from '../../src/scheduler/index.js';
import { TestInstance, TestItem, flush, modelConfig } from './helpers.js';

export type ItemOptions = ConstructorParameters<typeof TestItem>[1];

/** A scheduler implementation as the contract suite drives it. */
export interface ContractSubject {
  /** The scheduler under test, running its work on one backend instance `inst`, timed by `clock`. */
  create(clock: ManualClock, inst: TestInstance): Scheduler;
  /** The i-th request, valid for this scheduler (a sequence batcher needs correlation IDs). */
  itemFor(label: string, i: number, o: ItemOptions): TestItem;
  /** The code a failing backend reaches the item with (a pipeline names the step that failed). */
  backendFailedCode?: string;
}

/** A scheduler made by `createScheduler` from a config with max_batch_size 1 plus `over`. */
export function configured(over: Partial<ModelConfig>): ContractSubject['create'] {
  return (clock, inst) => createScheduler(modelConfig({ max_batch_size: 1, ...over }), [inst], { model: 'm', clock });
}

/**
 * The scheduler contract every implementation runs (enqueue, in-flight count, stop; failures
 * reported through the item, never thrown), on one instance so a second request must wait.
 */
export function schedulerContract(name: string, subject: ContractSubject): void {
  const setup = () => {
    const clock = new ManualClock();
    const inst = new TestInstance();
    const s = subject.create(clock, inst);
    let n = 0;
    const item = (label: string, o: ItemOptions = {}) => {
      const it = subject.itemFor(label, n++, { now: clock.now(), ...o });
      s.enqueue(it);
      return it;
    };
    return { clock, inst, s, item };
  };

  test(`${name}: every enqueued request gets exactly one final answer`, async () => {
    const { inst, item, s } = setup();
    const items = [item('a'), item('b'), item('c')];
    await flush();
    while (inst.busy) await inst.complete();
    for (const it of items) assert.deepEqual(it.events.map((e) => e.kind), ['response'], `${it.label} answered once`);
    assert.equal(s.inflightCount(), 0);
  });

  test(`${name}: inflightCount counts queued and executing requests`, async () => {
    const { inst, item, s } = setup();
    item('a'); item('b');
    assert.equal(s.inflightCount(), 2);
    await flush();
    await inst.complete();
    assert.equal(s.inflightCount(), 1);
  });

  test(`${name}: a queued request cancels at once, and times out at once at its deadline`, async () => {
    const { item, clock, s } = setup();
    item('run');
    await flush();
    const c = item('c');
    const d = item('d', { deadline: 1 });
    c.abort.abort();
    assert.equal(c.errorCode, 'TRB_CANCELLED');
    clock.advance(1);
    assert.equal(d.errorCode, 'TRB_TIMEOUT');
    assert.equal(s.inflightCount(), 1);
  });

  test(`${name}: stop() fails queued requests UNAVAILABLE and waits for the running batch`, async () => {
    const { inst, item, s } = setup();
    const run = item('run');
    await flush();
    const q = item('q');
    let done = false;
    const p = s.stop().then(() => { done = true; });
    assert.equal(q.errorCode, 'TRB_MODEL_UNLOADING');
    await flush();
    assert.equal(done, false);
    await inst.complete();
    await p;
    assert.ok(run.responded, 'the running request finished');
    assert.equal(item('late').errorCode, 'TRB_MODEL_UNLOADING');
  });

  test(`${name}: a failing backend fails its requests, not the scheduler`, async () => {
    const { inst, item } = setup();
    const a = item('a');
    const b = item('b');
    await flush();
    await inst.rejectBatch(new Error('backend exploded'));
    assert.equal(a.errorCode, subject.backendFailedCode ?? 'TRB_BACKEND_FAILED');
    await inst.complete();
    assert.ok(b.responded, 'the next request still runs');
  });
}
