/** `map:` in the dataflow on hand-built plans: order, concurrency, gathering, empty, limits, failures, cancellation. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Observable } from 'rxjs';
import { createEnsembleScheduler } from '../../src/dataflow/index.js';
import type { InferenceResponse } from '../../src/inference/index.js';
import type { PlanMap } from '../../src/pipeline/index.js';
import { createTensor, tensorStrings, type Tensor } from '../../src/tensor/index.js';
import { plan, step } from './control-flow-plans.js';
import { fnHost, makeItem, response, values, type ModelFn } from './dataflow-fixtures.js';

/** Y = fn(X) elementwise, keeping X's shape and datatype, after `delay(X)` ms when given. */
function rows(fn: (v: number) => number, o: { delay?: (x: number[]) => number; fail?: (x: number[]) => boolean; torn?: () => void } = {}): ModelFn {
  return (req) => new Observable<InferenceResponse>((s) => {
    const x = req.inputs[0]!;
    const run = () => {
      if (o.fail?.(values(x))) return s.error(new Error(`bad value ${values(x)[0]}`));
      s.next(response(req, [createTensor('Y', 'FP32', x.shape, values(x).map(fn))]));
      s.complete();
    };
    const ms = o.delay?.(values(x));
    if (ms === undefined) { run(); return undefined; }
    let fired = false;
    const h = setTimeout(() => { fired = true; run(); }, ms);
    return () => { clearTimeout(h); if (!fired) o.torn?.(); };
  });
}

const itemPlan = (model = 'sq') => plan({
  inputs: ['crop'], outputs: [{ name: 'y', datatype: 'FP32', dims: [-1, 2] }],
  nodes: [step(model, { X: 'crop' }, { Y: 'y' })],
});

function mapPlan(o: Partial<PlanMap> = {}) {
  const map: PlanMap = { over: 'CROPS', as: 'crop', concurrency: 16, maxItems: 1024, plan: itemPlan(), ...o };
  return plan({ inputs: ['CROPS'], outputs: ['OUT'], nodes: [{ name: 'map#1', map, in: { crop: 'CROPS' }, out: { y: 'OUT' } }] });
}

const crops = (n: number) => createTensor('CROPS', 'FP32', [n, 2], Array.from({ length: n * 2 }, (_, i) => i));

async function run(p: ReturnType<typeof plan>, host: ReturnType<typeof fnHost>, input: Tensor, o: { deadline?: number; abortAfterMs?: number } = {}) {
  const sched = createEnsembleScheduler(p, { host, pipeline: 'p' });
  const item = makeItem({ inputs: [input] }, o.deadline === undefined ? {} : { deadline: o.deadline });
  sched.enqueue(item);
  if (o.abortAfterMs !== undefined) setTimeout(() => item.abort(), o.abortAfterMs);
  await item.settled;
  return { item, sched, out: item.responses[0]?.outputs[0] };
}

test('map: items run as views of one row, at most `concurrency` at once, gathered in item order', async () => {
  let inflight = 0;
  let peak = 0;
  const sq: ModelFn = (req) => {
    inflight++;
    peak = Math.max(peak, inflight);
    return new Observable<InferenceResponse>((s) => {
      const inner = rows((v) => v * v, { delay: (x) => 12 - x[0]! }) (req).subscribe({ next: (r) => s.next(r), error: (e) => s.error(e), complete: () => { inflight--; s.complete(); } });
      return () => inner.unsubscribe();
    });
  };
  const host = fnHost({ sq });
  const input = crops(6);
  const { item, out, sched } = await run(mapPlan({ concurrency: 2 }), host, input);
  assert.equal(item.error, undefined, item.error?.message);
  assert.deepEqual(out!.shape, [6, 2]);
  assert.deepEqual(values(out), Array.from({ length: 12 }, (_, i) => i * i));
  assert.equal(peak, 2);
  assert.equal(host.calls.length, 6);
  const first = host.calls[0]!.inputs[0]!;
  assert.deepEqual(first.shape, [1, 2]);
  assert.equal((first.data as Float32Array).buffer, (input.data as Float32Array).buffer, 'an item is a view, not a copy');
  assert.deepEqual(sched.stepStats().map((s) => [s.step, s.count, s.items ?? s.skipped ?? 0]), [['map#1', 1, 6], ['map#1/sq#0', 6, 0]]);
});

test('map: the first `concurrency` items start in the same tick', () => {
  const host = fnHost({ sq: rows((v) => v, { delay: () => 5 }) });
  const sched = createEnsembleScheduler(mapPlan({ concurrency: 4 }), { host, pipeline: 'p' });
  const item = makeItem({ inputs: [crops(10)] });
  sched.enqueue(item);
  assert.equal(host.calls.length, 4, 'four children started synchronously');
  item.abort();
});

test('map over a BYTES list maps per element, each item a [1] tensor', async () => {
  const upper: ModelFn = (req) => new Observable((s) => {
    s.next(response(req, [createTensor('Y', 'BYTES', req.inputs[0]!.shape, tensorStrings(req.inputs[0]!).map((x) => x.toUpperCase()))]));
    s.complete();
  });
  const sub = plan({ inputs: ['w'], outputs: ['u'], nodes: [step('upper', { X: 'w' }, { Y: 'u' })] });
  const p = plan({ inputs: ['WORDS'], outputs: ['OUT'], nodes: [{ name: 'map#1', map: { over: 'WORDS', as: 'w', concurrency: 8, maxItems: 8, plan: sub }, in: { w: 'WORDS' }, out: { u: 'OUT' } }] });
  const host = fnHost({ upper });
  const { item, out } = await run(p, host, createTensor('WORDS', 'BYTES', [3], ['a', 'bc', 'd']));
  assert.equal(item.error, undefined, item.error?.message);
  assert.deepEqual(host.calls.map((c) => c.inputs[0]!.shape), [[1], [1], [1]]);
  assert.deepEqual(out!.shape, [3]);
  assert.deepEqual(tensorStrings(out!), ['A', 'BC', 'D']);
});

test('map over zero items gives a dim-0-size-0 output typed by the item plan, without a call', async () => {
  const host = fnHost({ sq: rows((v) => v) });
  const { item, out } = await run(mapPlan(), host, crops(0));
  assert.equal(item.error, undefined, item.error?.message);
  assert.equal(out!.datatype, 'FP32');
  assert.deepEqual(out!.shape, [0, 2]);
  assert.equal(host.calls.length, 0);
});

test('more items than max_items fails INVALID_ARG naming the map', async () => {
  const host = fnHost({ sq: rows((v) => v) });
  const { item } = await run(mapPlan({ maxItems: 3 }), host, crops(4));
  assert.equal(item.error?.code, 'TRB_PIPELINE_MAP_TOO_MANY_ITEMS');
  assert.equal(item.error?.kind, 'INVALID_ARG');
  assert.match(item.error!.message, /map#1: tensor 'CROPS' has 4 items, more than max_items 3/);
  assert.equal(host.calls.length, 0);
});

test('a map over a tensor without a first dim fails INVALID_ARG naming the map and the tensor', async () => {
  const { item } = await run(mapPlan(), fnHost({ sq: rows((v) => v) }), createTensor('CROPS', 'FP32', [], [1]));
  assert.equal(item.error?.code, 'TRB_PIPELINE_MAP_NOT_LIST');
  assert.equal(item.error?.kind, 'INVALID_ARG');
  assert.match(item.error!.message, /map#1: tensor 'CROPS' \(shape \[\]\) has no first dim/);
});

test('an item failure fails the map naming the item, and cancels the items still running', async () => {
  let torn = 0;
  const host = fnHost({ sq: rows((v) => v, { delay: (x) => (x[0] === 4 ? 1 : 200), fail: (x) => x[0] === 4, torn: () => torn++ }) });
  const { item } = await run(mapPlan({ concurrency: 8 }), host, crops(5));
  assert.equal(item.error?.code, 'TRB_PIPELINE_MAP_ITEM_FAILED');
  assert.match(item.error!.message, /map#1: item 2 \(of 5\) failed: in ensemble 'p', bad value 4; at step 'sq#0'/);
  assert.equal(torn, 4, 'the four other items were cancelled');
});

test('items whose outputs disagree past dim 0 fail INTERNAL naming map, item and tensor', async () => {
  const ragged: ModelFn = (req) => new Observable((s) => {
    const n = values(req.inputs[0])[0]! > 1 ? 3 : 2;
    s.next(response(req, [createTensor('Y', 'FP32', [1, n], new Array(n).fill(0))]));
    s.complete();
  });
  const { item } = await run(mapPlan(), fnHost({ sq: ragged }), crops(3));
  assert.equal(item.error?.code, 'TRB_PIPELINE_MAP_SHAPE_MISMATCH');
  assert.equal(item.error?.kind, 'INTERNAL');
  assert.match(item.error!.message, /map#1: item 1 made 'y' FP32 \[1,3\] but item 0 made FP32 \[1,2\]/);
});

test('cancelling mid-map tears down every item in flight and starts no more', async () => {
  let torn = 0;
  const host = fnHost({ sq: rows((v) => v, { delay: () => 1000, torn: () => torn++ }) });
  const { item } = await run(mapPlan({ concurrency: 3 }), host, crops(10), { abortAfterMs: 20 });
  assert.equal(item.error?.kind, 'CANCELLED');
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(host.calls.length, 3);
  assert.equal(torn, 3);
});

test('a deadline reached mid-map fails the request and starts no further item', async () => {
  const host = fnHost({ sq: rows((v) => v, { delay: () => 15 }) });
  const { item } = await run(mapPlan({ concurrency: 1 }), host, crops(50), { deadline: performance.now() + 40 });
  assert.equal(item.error?.kind, 'UNAVAILABLE', item.error?.message);
  assert.ok(host.calls.length < 50 && host.calls.length >= 2, `${host.calls.length} calls`);
  assert.ok(host.calls.every((c) => c.deadline !== undefined), 'every item child carries the deadline');
});
