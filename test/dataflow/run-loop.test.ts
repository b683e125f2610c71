/** `loop:` in the dataflow on hand-built plans: while, max, carried types, outer reads, failures, cancellation. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Observable } from 'rxjs';
import { createEnsembleScheduler } from '../../src/dataflow/index.js';
import type { InferenceResponse } from '../../src/inference/index.js';
import type { PlanLoop } from '../../src/pipeline/index.js';
import { createTensor, tensorStrings, type Tensor } from '../../src/tensor/index.js';
import { cond, plan, step } from './control-flow-plans.js';
import { f32, fnHost, makeItem, response, values, type ModelFn } from './dataflow-fixtures.js';

/** Y = X + STEP (STEP defaults to 0.25), after `delayMs` when given; counts teardowns of unfinished calls. */
function add(o: { delayMs?: number; failAt?: number; torn?: () => void } = {}): ModelFn {
  return (req) => new Observable<InferenceResponse>((s) => {
    const x = values(req.inputs[0]);
    const stepBy = req.inputs[1] ? values(req.inputs[1])[0]! : 0.25;
    const run = () => {
      if (o.failAt !== undefined && x[0]! >= o.failAt) return s.error(new Error(`too far at ${x[0]}`));
      s.next(response(req, [f32('Y', x.map((v) => v + stepBy))]));
      s.complete();
    };
    if (o.delayMs === undefined) { run(); return undefined; }
    let fired = false;
    const h = setTimeout(() => { fired = true; run(); }, o.delayMs);
    return () => { clearTimeout(h); if (!fired) o.torn?.(); };
  });
}

const env = { state: { datatype: 'FP32', dims: [1] } };
const body = (reads: Record<string, string> = { X: 'state' }) =>
  plan({ inputs: Object.values(reads), outputs: ['new_state'], nodes: [step('add', reads, { Y: 'new_state' })] });

function loopPlan(o: Partial<PlanLoop> = {}, inputs = ['STATE0']) {
  const loop: PlanLoop = {
    max: 8, carry: [{ name: 'state', from: 'STATE0' }], next: [{ name: 'state', from: 'new_state' }], plan: body(), ...o,
  };
  return plan({ inputs, outputs: ['FINAL'], nodes: [{ name: 'loop#1', loop, in: { state: 'STATE0' }, out: { state: 'FINAL' } }] });
}

async function run(p: ReturnType<typeof plan>, host: ReturnType<typeof fnHost>, inputs: Tensor[], o: { deadline?: number; abortAfterMs?: number } = {}) {
  const sched = createEnsembleScheduler(p, { host, pipeline: 'p' });
  const item = makeItem({ inputs }, o.deadline === undefined ? {} : { deadline: o.deadline });
  sched.enqueue(item);
  if (o.abortAfterMs !== undefined) setTimeout(() => item.abort(), o.abortAfterMs);
  await item.settled;
  return { item, sched, out: item.responses[0]?.outputs[0] };
}

test('loop: `while` is checked before each iteration and `next` feeds the following one', async () => {
  const host = fnHost({ add: add() });
  const { item, out, sched } = await run(loopPlan({ while: cond('max(state) < 0.9', env) }), host, [f32('STATE0', [0.1])]);
  assert.equal(item.error, undefined, item.error?.message);
  assert.ok(Math.abs(values(out)[0]! - 1.1) < 1e-6, `${values(out)}`); // 0.1 -> 0.35 -> 0.6 -> 0.85 -> 1.1
  assert.equal(out!.name, 'FINAL');
  assert.deepEqual(host.calls.map((c) => values(c.inputs[0]).map((v) => Math.round(v * 100))), [[10], [35], [60], [85]]);
  assert.deepEqual(sched.stepStats().map((s) => [s.step, s.count, s.iterations ?? 0]), [['loop#1', 1, 4], ['loop#1/add#0', 4, 0]]);
});

test('loop: reaching `max` ends the loop without an error; no `while` runs `max` times; a false `while` runs none', async () => {
  const host = fnHost({ add: add() });
  const capped = await run(loopPlan({ max: 3, while: cond('max(state) < 100', env) }), host, [f32('STATE0', [0])]);
  assert.equal(capped.item.error, undefined);
  assert.deepEqual(values(capped.out), [0.75]);
  const plain = await run(loopPlan({ max: 5 }), host, [f32('STATE0', [0])]);
  assert.deepEqual(values(plain.out), [1.25]);
  host.calls.length = 0;
  const none = await run(loopPlan({ while: cond('max(state) < 0', env) }), host, [f32('STATE0', [7])]);
  assert.deepEqual(values(none.out), [7]);
  assert.equal(host.calls.length, 0);
});

test('loop: carried tensors keep their own types, and the body reads outer tensors', async () => {
  const count: ModelFn = (req) => new Observable((s) => {
    const n = req.inputs[0]!.data as BigInt64Array;
    s.next(response(req, [createTensor('Y', 'INT64', [1], [n[0]! + 1n])]));
    s.complete();
  });
  const append: ModelFn = (req) => new Observable((s) => {
    s.next(response(req, [createTensor('Y', 'BYTES', [1], [tensorStrings(req.inputs[0]!)[0]! + tensorStrings(req.inputs[1]!)[0]!])]));
    s.complete();
  });
  const bodyPlan = plan({
    inputs: ['n', 'text', 'SUFFIX'], outputs: ['n2', 'text2'],
    nodes: [step('count', { X: 'n' }, { Y: 'n2' }), step('append', { A: 'text', B: 'SUFFIX' }, { Y: 'text2' })],
  });
  const loop: PlanLoop = {
    max: 10, carry: [{ name: 'n', from: 'N0' }, { name: 'text', from: 'T0' }],
    while: cond('n < 3', { n: { datatype: 'INT64', dims: [1] } }),
    next: [{ name: 'n', from: 'n2' }, { name: 'text', from: 'text2' }], plan: bodyPlan,
  };
  const p = plan({
    inputs: ['N0', 'T0', 'SUFFIX'], outputs: ['N', 'T'],
    nodes: [{ name: 'loop#1', loop, in: { n: 'N0', text: 'T0', SUFFIX: 'SUFFIX' }, out: { n: 'N', text: 'T' } }],
  });
  const { item } = await run(p, fnHost({ count, append }), [
    createTensor('N0', 'INT64', [1], [0n]), createTensor('T0', 'BYTES', [1], ['a']), createTensor('SUFFIX', 'BYTES', [1], ['!']),
  ]);
  assert.equal(item.error, undefined, item.error?.message);
  const out = new Map(item.responses[0]!.outputs.map((t) => [t.name, t]));
  assert.equal(out.get('N')!.datatype, 'INT64');
  assert.deepEqual([...(out.get('N')!.data as BigInt64Array)], [3n]);
  assert.deepEqual(tensorStrings(out.get('T')!), ['a!!!']);
});

test('an iteration failure fails the loop naming the iteration', async () => {
  const { item } = await run(loopPlan(), fnHost({ add: add({ failAt: 0.5 }) }), [f32('STATE0', [0])]);
  assert.equal(item.error?.code, 'TRB_PIPELINE_LOOP_ITERATION_FAILED');
  assert.match(item.error!.message, /loop#1: iteration 2 failed: in ensemble 'p', too far at 0\.5; at step 'add#0'/);
});

test('cancelling mid-loop tears down the running iteration and starts no more', async () => {
  let torn = 0;
  const host = fnHost({ add: add({ delayMs: 15, torn: () => torn++ }) });
  const { item } = await run(loopPlan({ max: 100 }), host, [f32('STATE0', [0])], { abortAfterMs: 40 });
  assert.equal(item.error?.kind, 'CANCELLED');
  const calls = host.calls.length;
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(host.calls.length, calls, 'no iteration after the cancel');
  assert.equal(torn, 1);
});

test('a deadline reached mid-loop fails the request UNAVAILABLE', async () => {
  const host = fnHost({ add: add({ delayMs: 10 }) });
  const { item } = await run(loopPlan({ max: 100 }), host, [f32('STATE0', [0])], { deadline: performance.now() + 35 });
  assert.equal(item.error?.kind, 'UNAVAILABLE', item.error?.message);
  assert.ok(host.calls.length < 100 && host.calls.length >= 2, `${host.calls.length} calls`);
});

test('a loop under a false `when` is skipped whole: no iteration runs and its output is SKIPPED (optional: omitted)', async () => {
  const loop: PlanLoop = { max: 8, carry: [{ name: 'state', from: 'STATE0' }], next: [{ name: 'state', from: 'new_state' }], plan: body() };
  const p = plan({
    inputs: ['STATE0'], outputs: ['FINAL', 'ECHO'], optional: ['FINAL'],
    nodes: [
      { name: 'loop#1', loop, in: { state: 'STATE0' }, out: { state: 'FINAL' }, guards: [{ kind: 'when', condition: cond('params.refine == true') }] },
      step('add', { X: 'STATE0' }, { Y: 'ECHO' }),
    ],
  });
  const host = fnHost({ add: add() });
  const sched = createEnsembleScheduler(p, { host, pipeline: 'p' });
  const item = makeItem({ inputs: [f32('STATE0', [1])], parameters: { refine: false } });
  sched.enqueue(item);
  await item.settled;
  assert.equal(item.error, undefined, item.error?.message);
  assert.deepEqual(item.responses[0]!.outputs.map((t) => t.name), ['ECHO']);
  assert.equal(host.calls.length, 1);
  assert.deepEqual(sched.stepStats().map((s) => [s.step, s.count, s.skipped ?? 0, s.iterations ?? 0]), [['loop#1', 0, 1, 0], ['loop#1/add#0', 0, 0, 0], ['add#1', 1, 0, 0]]);
});
