import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Observable } from 'rxjs';
import type { InferenceResponse } from '../../src/inference/index.js';
import { createEnsembleScheduler } from '../../src/dataflow/index.js';
import { compilePipeline } from '../../src/pipeline/index.js';
import { ManualClock, type Clock, type WorkItem } from '../../src/scheduler/index.js';
import { F4, model, pipeline, resolver } from '../pipeline/pipeline-fixtures.js';
import { f32, fnHost, makeItem, mapModel, response, values, type ModelFn } from './dataflow-fixtures.js';

const unary = (name: string) => model(name, { X: F4 }, { Y: F4 });
const sum2 = model('sum2', { A: F4, B: F4 }, { Y: F4 });
const diamond = pipeline('diamond', { IN: F4 }, { OUT: F4 }, [
  { model: 'a', in: { X: 'IN' }, out: { Y: 'm' } },
  { model: 'b', in: { X: 'm' }, out: { Y: 'l' } },
  { model: 'c', in: { X: 'm' }, out: { Y: 'r' } },
  { model: 'sum2', in: { A: 'l', B: 'r' }, out: { Y: 'OUT' } },
]);
const diamondPlan = compilePipeline(diamond, resolver(unary('a'), unary('b'), unary('c'), sum2)).plan!;

/** Passes its inputs' sum through after `ms` on the injected clock. */
function timed(clock: Clock, ms: number): ModelFn {
  return (req) => new Observable<InferenceResponse>((s) => {
    const h = clock.setTimer(() => {
      const n = req.inputs[0]!.shape[0]!;
      s.next(response(req, [f32('Y', Array.from({ length: n }, (_, i) => req.inputs.reduce((acc, t) => acc + values(t)[i]!, 0)))]));
      s.complete();
    }, ms);
    return () => clock.clearTimer(h);
  });
}

test('parallel branches: two 50 ms branches finish in about 50 ms, not 100', async () => {
  const host = fnHost({
    a: mapModel((v) => v), b: mapModel((v) => v + 1, { delayMs: 50 }), c: mapModel((v) => v + 2, { delayMs: 50 }),
    sum2: (req) => new Observable((s) => { s.next(response(req, [f32('Y', values(req.inputs[0]).map((v, i) => v + values(req.inputs[1])[i]!))])); s.complete(); }),
  });
  const sched = createEnsembleScheduler(diamondPlan, { host, pipeline: 'diamond' });
  const item = makeItem({ inputs: [f32('IN', [1, 1, 1, 1])] });
  const t0 = performance.now();
  sched.enqueue(item);
  await item.settled;
  const ms = performance.now() - t0;
  assert.equal(item.error, undefined);
  assert.deepEqual(values(item.responses[0]!.outputs[0]), [5, 5, 5, 5]);
  assert.ok(ms >= 49 && ms < 90, `took ${ms.toFixed(1)} ms`);
  const wall = sched.wallStats();
  const summed = sched.stepStats().reduce((acc, s) => acc + s.ns, 0);
  assert.equal(wall.count, 1);
  assert.ok(summed > wall.ns * 1.5, `steps summed ${summed} ns vs wall ${wall.ns} ns: branches must not look sequential`);
});

test('step statistics and wall time are exact on a virtual clock', () => {
  const clock = new ManualClock();
  const host = fnHost({ a: timed(clock, 10), b: timed(clock, 30), c: timed(clock, 50), sum2: timed(clock, 5) });
  const starts: number[] = [];
  const ends: number[] = [];
  const sched = createEnsembleScheduler(diamondPlan, {
    host, pipeline: 'diamond', clock,
    hooks: { onBatchStart: () => starts.push(clock.now()), onBatchEnd: () => ends.push(clock.now()) },
  });
  for (let i = 0; i < 2; i++) {
    const item = makeItem({ inputs: [f32('IN', [1, 2, 3, 4])] });
    sched.enqueue(item);
    clock.advance(100);
    assert.equal(item.done, true);
    assert.deepEqual(values(item.responses[0]!.outputs[0]), [2, 4, 6, 8]);
  }
  assert.deepEqual(sched.stepStats(), [
    { step: 'a', model: 'a', version: '1', count: 2, ns: 20e6, fail: 0 },
    { step: 'b', model: 'b', version: '1', count: 2, ns: 60e6, fail: 0 },
    { step: 'c', model: 'c', version: '1', count: 2, ns: 100e6, fail: 0 },
    { step: 'sum2', model: 'sum2', version: '1', count: 2, ns: 10e6, fail: 0 },
  ]);
  assert.deepEqual(sched.wallStats(), { count: 2, ns: 2 * 65e6 });
  assert.deepEqual(starts, [0, 100]);
  assert.deepEqual(ends, [65, 165]);
});

test('queue depth is reported to the model hooks while max_inflight holds requests back', () => {
  const clock = new ManualClock();
  const depths: number[] = [];
  const host = fnHost({ a: timed(clock, 10), b: timed(clock, 10), c: timed(clock, 10), sum2: timed(clock, 10) });
  const sched = createEnsembleScheduler(diamondPlan, { host, pipeline: 'diamond', clock, maxInflight: 1, hooks: { onQueueDepth: (d) => depths.push(d) } });
  const items: WorkItem[] = [0, 1, 2].map(() => makeItem({ inputs: [f32('IN', [1, 2, 3, 4])] }));
  for (const it of items) sched.enqueue(it);
  assert.deepEqual(depths, [1, 2]);
  clock.advance(30);
  assert.deepEqual(depths, [1, 2, 1]);
  clock.advance(60);
  assert.deepEqual(depths, [1, 2, 1, 0]);
  assert.ok(items.every((it) => it.done));
});
