/**
 * Guards, switches, SKIPPED propagation, several producers and `return` in the dataflow, on
 * hand-built plans (control-flow-plans.ts) over a function host.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { of } from 'rxjs';
import { createEnsembleScheduler } from '../../src/dataflow/index.js';
import { createTensor, tensorStrings } from '../../src/tensor/index.js';
import { cond, inCase, literal, plan, ret, step, when, type CondEnv } from './control-flow-plans.js';
import { f32, fnHost, makeItem, mapModel, response, values, type ModelFn } from './dataflow-fixtures.js';

const env: CondEnv = { x: { datatype: 'FP32', dims: [1] }, lang: { datatype: 'BYTES', dims: [1] } };
/** Passes its first input through as Y (any datatype). */
const echo: ModelFn = (req) => of(response(req, [{ ...req.inputs[0]!, name: 'Y' }]));
const bytes = (name: string, s: string[]) => createTensor(name, 'BYTES', [s.length], s);

async function runOnce(p: ReturnType<typeof plan>, host: ReturnType<typeof fnHost>, inputs: ReturnType<typeof f32>[], o: { parameters?: Record<string, string | number | boolean>; outputs?: string[]; batching?: boolean } = {}) {
  const sched = createEnsembleScheduler(p, { host, pipeline: 'p', ...(o.batching ? { batching: true } : {}) });
  const item = makeItem({ inputs, ...(o.parameters ? { parameters: o.parameters } : {}), ...(o.outputs ? { outputs: o.outputs.map((name) => ({ name })) } : {}) });
  sched.enqueue(item);
  await item.settled;
  return { item, sched, out: new Map(item.responses[0]?.outputs.map((t) => [t.name, t]) ?? []) };
}

test('a false `when` skips the step; its output is SKIPPED, its consumer skipped too, an optional output omitted', async () => {
  const p = plan({
    inputs: ['IN'], outputs: ['A', 'B', 'C'], optional: ['B', 'C'],
    nodes: [
      step('inc', { X: 'IN' }, { Y: 'A' }),
      step('dbl', { X: 'IN' }, { Y: 'B' }, [when('params.double == true')]),
      step('neg', { X: 'B' }, { Y: 'C' }),
    ],
  });
  const host = fnHost({ inc: mapModel((v) => v + 1), dbl: mapModel((v) => v * 2), neg: mapModel((v) => -v) });
  const off = await runOnce(p, host, [f32('IN', [1, 2])], { parameters: { double: false } });
  assert.equal(off.item.error, undefined);
  assert.deepEqual([...off.out.keys()], ['A']);
  assert.deepEqual(host.calls.map((c) => c.model), ['inc'], 'skipped steps cost no call');
  assert.deepEqual(off.sched.stepStats().map((s) => [s.step, s.count, s.skipped ?? 0]), [['inc#0', 1, 0], ['dbl#1', 0, 1], ['neg#2', 0, 1]]);

  host.calls.length = 0;
  const on = await runOnce(p, host, [f32('IN', [1, 2])], { parameters: { double: true } });
  assert.deepEqual([...on.out].map(([k, t]) => [k, values(t)]), [['A', [2, 3]], ['B', [2, 4]], ['C', [-2, -4]]]);
});

test('a condition on a tensor waits for it; a SKIPPED non-optional output fails INTERNAL naming it', async () => {
  const p = plan({
    inputs: ['IN'], outputs: ['OUT'],
    nodes: [
      step('inc', { X: 'IN' }, { Y: 'x' }),
      step('dbl', { X: 'x' }, { Y: 'OUT' }, [when('x > 10', env)]),
    ],
  });
  const host = fnHost({ inc: mapModel((v) => v + 1, { delayMs: 2 }), dbl: mapModel((v) => v * 2) });
  const { item } = await runOnce(p, host, [f32('IN', [1])]);
  assert.equal(item.error?.code, 'TRB_PIPELINE_OUTPUT_SKIPPED');
  assert.equal(item.error?.kind, 'INTERNAL');
  assert.match(item.error!.message, /output 'OUT' was skipped/);
  const ok = await runOnce(p, host, [f32('IN', [20])]);
  assert.deepEqual(values(ok.out.get('OUT')), [42]);
});

test('switch: the first case that holds runs, else default; one tensor from either case; decided once, counted per case', async () => {
  const p = plan({
    inputs: ['IN', 'LANG'], outputs: ['OUT'],
    switches: [{ cases: [cond("lang == 'en'", env), cond("lang in ['de', 'fr']", env)], hasDefault: true }],
    nodes: [
      step('langid', { X: 'LANG' }, { Y: 'lang' }),
      step('en', { X: 'IN' }, { Y: 'OUT' }, [inCase(0, 0)]),
      step('eu', { X: 'IN' }, { Y: 'OUT' }, [inCase(0, 1)]),
      step('other', { X: 'IN' }, { Y: 'OUT' }, [inCase(0, -1)]),
    ],
  });
  const host = fnHost({
    langid: echo, en: mapModel((v) => v + 1), eu: mapModel((v) => v + 2, { delayMs: 1 }), other: mapModel((v) => v + 3),
  });
  const sched = createEnsembleScheduler(p, { host, pipeline: 'p' });
  const got: [string, number[]][] = [];
  for (const l of ['en', 'fr', 'xx', 'de']) {
    const item = makeItem({ inputs: [f32('IN', [0]), bytes('LANG', [l])] });
    sched.enqueue(item);
    await item.settled;
    assert.equal(item.error, undefined, item.error?.message);
    got.push([l, values(item.responses[0]!.outputs[0])]);
  }
  assert.deepEqual(got, [['en', [1]], ['fr', [2]], ['xx', [3]], ['de', [2]]]);
  assert.deepEqual(host.calls.map((c) => c.model).filter((m) => m !== 'langid'), ['en', 'eu', 'other', 'eu']);
  assert.deepEqual(sched.branchStats().map((b) => [b.switch, b.case, b.taken, b.skipped]), [
    ['switch#1', '0', 1, 3], ['switch#1', '1', 2, 2], ['switch#1', 'default', 1, 3],
  ]);
  assert.deepEqual(sched.stepStats().map((s) => [s.step, s.count, s.skipped ?? 0]), [['langid#0', 4, 0], ['en#1', 1, 3], ['eu#2', 2, 2], ['other#3', 1, 3]]);
});

test('switch without default where no case holds: every producer skipped makes the tensor SKIPPED (optional: omitted)', async () => {
  const p = plan({
    inputs: ['IN'], outputs: ['OUT', 'ALWAYS'], optional: ['OUT'],
    switches: [{ cases: [cond('x > 100', env), cond('x < -100', env)], hasDefault: false }],
    nodes: [
      step('inc', { X: 'IN' }, { Y: 'x' }),
      step('a', { X: 'x' }, { Y: 'OUT' }, [inCase(0, 0)]),
      step('b', { X: 'x' }, { Y: 'OUT' }, [inCase(0, 1)]),
      step('after', { X: 'OUT' }, { Y: 'never' }),
      step('always', { X: 'x' }, { Y: 'ALWAYS' }),
    ],
  });
  const host = fnHost({ inc: mapModel((v) => v + 1), a: mapModel((v) => v), b: mapModel((v) => v), after: mapModel((v) => v), always: mapModel((v) => v * 10) });
  const { item, out, sched } = await runOnce(p, host, [f32('IN', [1])]);
  assert.equal(item.error, undefined, item.error?.message);
  assert.deepEqual([...out].map(([k, t]) => [k, values(t)]), [['ALWAYS', [20]]]);
  assert.deepEqual(host.calls.map((c) => c.model), ['inc', 'always']);
  assert.deepEqual(sched.branchStats().map((b) => [b.case, b.taken, b.skipped]), [['0', 0, 1], ['1', 0, 1]]);
});

test('a run-time condition error (a tensor of several values read as one) fails the request INVALID_ARG naming the step', async () => {
  const p = plan({ inputs: ['IN'], outputs: ['OUT'], nodes: [step('dbl', { X: 'IN' }, { Y: 'OUT' }, [when('IN > 1', { IN: { datatype: 'FP32', dims: [-1] } })])] });
  const { item } = await runOnce(p, fnHost({ dbl: mapModel((v) => v) }), [f32('IN', [1, 2, 3])]);
  assert.equal(item.error?.kind, 'INVALID_ARG');
  assert.match(item.error!.message, /pipeline 'p', step 'dbl#0'.*condition 'IN > 1'/);
});

test('return: emits its requested outputs, cancels the slow branch still running, and completes', async () => {
  let cancelled = 0;
  const p = plan({
    inputs: ['IN'], outputs: ['LABEL', 'SCORE', 'OTHER'],
    nodes: [
      step('slow', { X: 'IN' }, { Y: 'OTHER' }),
      step('score', { X: 'IN' }, { Y: 'x' }),
      ret([literal(bytes('LABEL', ['unsupported'])), { name: 'SCORE', tensor: 'x' }], ['x'], [when('x < 5', env)]),
      step('label', { X: 'x' }, { Y: 'LABEL' }),
      step('copy', { X: 'x' }, { Y: 'SCORE' }),
    ],
  });
  const host = fnHost({
    slow: mapModel((v) => v, { delayMs: 5000, onTeardown: () => cancelled++ }),
    score: mapModel((v) => v + 1), label: mapModel((v) => v), copy: mapModel((v) => v),
  });
  const t0 = performance.now();
  const early = await runOnce(p, host, [f32('IN', [1])], { outputs: ['LABEL', 'OTHER'] });
  assert.ok(performance.now() - t0 < 2000, 'the run did not wait for the slow branch');
  assert.equal(early.item.error, undefined, early.item.error?.message);
  assert.equal(early.item.responses.length, 1);
  assert.deepEqual([...early.out.keys()], ['LABEL'], 'only the requested outputs the return has');
  assert.deepEqual(tensorStrings(early.out.get('LABEL')!), ['unsupported']);
  assert.equal(cancelled, 1, 'the slow branch was cancelled');
  assert.deepEqual(host.calls.map((c) => c.model), ['slow', 'score']);
});

test('a return whose guard fails does nothing; its outputs come from their other producers', async () => {
  const p = plan({
    inputs: ['IN'], outputs: ['SCORE'],
    nodes: [
      step('score', { X: 'IN' }, { Y: 'x' }),
      ret([literal(f32('SCORE', [-1]))], ['x'], [when('x < 5', env)]),
      step('copy', { X: 'x' }, { Y: 'SCORE' }),
    ],
  });
  const { item, out, sched } = await runOnce(p, fnHost({ score: mapModel((v) => v + 1), copy: mapModel((v) => v * 2) }), [f32('IN', [10])]);
  assert.equal(item.error, undefined, item.error?.message);
  assert.deepEqual(values(out.get('SCORE')), [22]);
  assert.deepEqual(sched.stepStats().map((s) => [s.step, s.count, s.skipped ?? 0]), [['score#0', 1, 0], ['return', 0, 1], ['copy#2', 1, 0]]);
});

test('a literal of a batching pipeline is repeated over the request batch', async () => {
  const p = plan({ inputs: ['IN'], outputs: ['LABEL', 'P'], nodes: [ret([literal(bytes('LABEL', ['n/a'])), literal(f32('P', [0.5, 0.25]))])] });
  const input = createTensor('IN', 'FP32', [3, 1], [1, 2, 3]);
  const { item, out } = await runOnce(p, fnHost({}), [input], { batching: true });
  assert.equal(item.error, undefined, item.error?.message);
  assert.deepEqual(out.get('LABEL')!.shape, [3, 1]);
  assert.deepEqual(tensorStrings(out.get('LABEL')!), ['n/a', 'n/a', 'n/a']);
  assert.deepEqual(out.get('P')!.shape, [3, 2]);
  assert.deepEqual(values(out.get('P')), [0.5, 0.25, 0.5, 0.25, 0.5, 0.25]);
  const unbatched = await runOnce(p, fnHost({}), [input]);
  assert.deepEqual(unbatched.out.get('P')!.shape, [2]);
});
