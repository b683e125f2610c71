/**
 * The ensemble scheduler under the scheduler contract: a one-step pipeline whose step, an
 * identity model, runs through the dataflow on the real default scheduler over the contract's
 * test instance. `max_inflight_requests: 1` makes the pipeline hold a second request back, as a
 * batcher's single instance does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEnsembleScheduler } from '../../src/dataflow/index.js';
import type { ConfigDataType } from '../../src/config/index.js';
import { compilePipeline } from '../../src/pipeline/index.js';
import { ManualClock, createScheduler } from '../../src/scheduler/index.js';
import { model, pipeline, resolver } from '../pipeline/pipeline-fixtures.js';
import { TestInstance, TestItem, flush } from '../scheduler/helpers.js';
import { schedulerContract } from '../scheduler/scheduler-contract.js';
import { fnHost, schedulerAsModel } from './dataflow-fixtures.js';

const F1: [ConfigDataType, number[]] = ['TYPE_FP32', [1]];
const step = model('identity', { IN: F1 }, { OUT: F1 }, { mbs: 1 });
const compiled = compilePipeline(pipeline('p', { IN: F1 }, { OUT: F1 }, [{ model: 'identity', in: { IN: 'IN' }, out: { OUT: 'OUT' } }], { mbs: 1, maxInflight: 1 }), resolver(step));
if (!compiled.plan) throw new Error(`fixture pipeline does not compile: ${JSON.stringify(compiled.problems)}`);
const plan = compiled.plan;

function create(clock: ManualClock, inst: TestInstance) {
  const identity = createScheduler(step, [inst], { model: 'identity', clock });
  return createEnsembleScheduler(plan, { host: fnHost({ identity: schedulerAsModel(identity) }), pipeline: 'p', clock });
}

schedulerContract('ensemble scheduler', {
  create,
  itemFor: (label, _i, o) => new TestItem(label, o),
  backendFailedCode: 'TRB_STEP_FAILED',
});

test('ensemble scheduler: a running request that is cancelled answers CANCELLED at once (the pipeline is its backend)', async () => {
  const inst = new TestInstance();
  const s = create(new ManualClock(), inst);
  const it = new TestItem('run');
  s.enqueue(it);
  await flush();
  assert.equal(inst.batches.length, 1, 'its step is executing');
  it.abort.abort();
  assert.equal(it.errorCode, 'TRB_CANCELLED');
  assert.equal(s.inflightCount(), 0);
  assert.equal(inst.batches[0]![0]!.signal.aborted, true, 'the step was cancelled too');
});
