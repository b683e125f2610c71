/**
 * Statistics when a `return` ends the run: the step whose answer triggered it is counted done
 * (its `complete` never arrives once the run unsubscribes), a call still running is counted
 * cancelled, and a node the run never reached is counted skipped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Observable } from 'rxjs';
import { createEnsembleScheduler } from '../../src/dataflow/index.js';
import type { InferenceResponse } from '../../src/inference/index.js';
import { plan, ret, step, when, type CondEnv } from './control-flow-plans.js';
import { f32, fnHost, makeItem, mapModel, response, values, type ModelFn } from './dataflow-fixtures.js';

const env: CondEnv = { A: { datatype: 'FP32', dims: [1] } };

/** Answers after a tick and completes a tick later, as a real backend's stream does. */
const answerThenComplete = (fn: (v: number) => number): ModelFn => (req) => new Observable<InferenceResponse>((s) => {
  let t = setTimeout(() => {
    s.next({ ...response(req, [f32('Y', values(req.inputs[0]).map(fn))]), version: '7' });
    t = setTimeout(() => s.complete(), 0);
  }, 1);
  return () => clearTimeout(t);
});

test('a return triggered by a step\'s answer counts that step once, a running call cancelled, an unreached node skipped', async () => {
  const p = plan({
    inputs: ['IN'], outputs: ['A', 'B'],
    nodes: [
      step('first', { X: 'IN' }, { Y: 'A' }),
      step('slow', { X: 'IN' }, { Y: 'B' }),
      ret([{ name: 'A', tensor: 'A' }, { name: 'B', tensor: 'A' }], ['A'], [when('A > 0', env)]),
      step('after', { X: 'B' }, { Y: 'C' }),
    ],
  });
  let cancelled = 0;
  const host = fnHost({
    first: answerThenComplete((v) => v + 1),
    slow: mapModel((v) => v, { delayMs: 5000, onTeardown: () => { cancelled++; } }),
    after: mapModel((v) => v),
  });
  const sched = createEnsembleScheduler(p, { host, pipeline: 'p' });
  for (let run = 0; run < 2; run++) {
    const item = makeItem({ inputs: [f32('IN', [1])] });
    sched.enqueue(item);
    await item.settled;
    assert.equal(item.error, undefined);
    assert.deepEqual(values(item.responses[0]!.outputs[0]), [2]);
  }
  assert.equal(cancelled, 2);
  const byStep = new Map(sched.stepStats().map((s) => [s.step, s]));
  assert.deepEqual([byStep.get('first#0')!.count, byStep.get('first#0')!.version], [2, '7'], 'counted though its complete never came');
  assert.ok(byStep.get('first#0')!.ns > 0);
  assert.deepEqual([byStep.get('slow#1')!.count, byStep.get('slow#1')!.fail, byStep.get('slow#1')!.cancelled], [0, 0, 2]);
  assert.deepEqual([byStep.get('return')!.count, byStep.get('after#3')!.count, byStep.get('after#3')!.skipped], [2, 0, 2]);
});

test('a synchronous host whose answer triggers the return is counted once, not again when it completes', async () => {
  const p = plan({
    inputs: ['IN'], outputs: ['A'],
    nodes: [step('sync', { X: 'IN' }, { Y: 'A' }), ret([{ name: 'A', tensor: 'A' }], ['A'])],
  });
  const sched = createEnsembleScheduler(p, { host: fnHost({ sync: mapModel((v) => v * 3) }), pipeline: 'p' });
  const item = makeItem({ inputs: [f32('IN', [2])] });
  sched.enqueue(item);
  await item.settled;
  assert.deepEqual(values(item.responses[0]!.outputs[0]), [6]);
  assert.deepEqual(sched.stepStats().map((s) => [s.step, s.count, s.cancelled ?? 0]), [['sync#0', 1, 0], ['return', 1, 0]]);
});
