import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Observable } from 'rxjs';
import type { InferenceResponse } from '../../src/inference/index.js';
import { createEnsembleScheduler } from '../../src/dataflow/index.js';
import { Errors } from '../../src/errors.js';
import { compilePipeline, type PipelinePlan } from '../../src/pipeline/index.js';
import type { ModelConfig } from '../../src/config/index.js';
import { F4, model, pipeline, resolver, type StepSpec } from '../pipeline/pipeline-fixtures.js';
import { f32, fnHost, makeItem, mapModel, response, schedulerAsModel, values, type ModelFn } from './dataflow-fixtures.js';

const unary = (name: string) => model(name, { X: F4 }, { Y: F4 });
const join = (name: string, ins: string[]) => model(name, Object.fromEntries(ins.map((i) => [i, F4])), { Y: F4 });

function plan(p: ModelConfig, ...models: ModelConfig[]): PipelinePlan {
  const r = compilePipeline(p, resolver(...models));
  assert.ok(r.plan, JSON.stringify(r.problems));
  return r.plan;
}

const sumModel: ModelFn = (req) => new Observable<InferenceResponse>((s) => {
  const n = req.inputs[0]!.shape[0]!;
  const out = Array.from({ length: n }, (_, i) => req.inputs.reduce((acc, t) => acc + values(t)[i]!, 0));
  s.next(response(req, [f32('Y', out)]));
  s.complete();
});

test('linear chain: one final response; children carry deadline, priority, sequence, id; tensors pass by reference', async () => {
  const p = plan(pipeline('chain', { IN: F4 }, { OUT: F4 }, [
    { model: 'inc', in: { X: 'IN' }, out: { Y: 'mid' } },
    { model: 'dbl', in: { X: 'mid' }, out: { Y: 'OUT' } },
  ]), unary('inc'), unary('dbl'));
  let midFromInc: unknown;
  const host = fnHost({
    inc: (req) => mapModel((v) => v + 1)(req),
    dbl: (req) => { midFromInc = req.inputs[0]!.data; return mapModel((v) => v * 2)(req); },
  });
  const sched = createEnsembleScheduler(p, { host, pipeline: 'chain' });
  const input = f32('IN', [1, 2, 3, 4]);
  const sequence = { id: 7n, start: true, end: false };
  const item = makeItem({ inputs: [input], id: 'req-1', sequence, parameters: { custom: 'x' } }, { priority: 2, deadline: 12345 });
  sched.enqueue(item);
  await item.settled;
  assert.equal(item.error, undefined);
  assert.equal(item.responses.length, 1);
  assert.equal(item.responses[0]!.final, true);
  assert.deepEqual(item.responses[0]!.outputs.map((t) => [t.name, values(t)]), [['OUT', [4, 6, 8, 10]]]);
  assert.equal(host.calls.length, 2);
  for (const c of host.calls) {
    assert.equal(c.deadline, 12345);
    assert.equal(c.priority, 2);
    assert.equal(c.sequence, sequence);
    assert.equal(c.id, 'req-1');
    assert.equal(c.signal, undefined, 'cancellation reaches children by unsubscribing');
    assert.deepEqual(c.parameters, { custom: 'x' });
    assert.equal(c.version, '');
  }
  assert.equal(host.calls[0]!.inputs[0]!.name, 'X');
  assert.equal(host.calls[0]!.inputs[0]!.data, input.data, 'the pipeline input reaches the step without a copy');
  assert.deepEqual(host.calls[0]!.outputs, [{ name: 'Y' }]);
  assert.ok(midFromInc instanceof Float32Array);
  assert.equal(sched.inflightCount(), 0);
});

test('diamond and fan-out/fan-in compute the right values', async () => {
  const steps: StepSpec[] = [
    { model: 'inc', in: { X: 'IN' }, out: { Y: 'm' } },
    { model: 'dbl', in: { X: 'm' }, out: { Y: 'l' } },
    { model: 'neg', in: { X: 'm' }, out: { Y: 'r' } },
    { model: 'sq', in: { X: 'm' }, out: { Y: 'c' } },
    { model: 'sum3', in: { A: 'l', B: 'r', C: 'c' }, out: { Y: 'OUT' } },
  ];
  const p = plan(pipeline('fan', { IN: F4 }, { OUT: F4 }, steps),
    unary('inc'), unary('dbl'), unary('neg'), unary('sq'), join('sum3', ['A', 'B', 'C']));
  const host = fnHost({
    inc: mapModel((v) => v + 1), dbl: mapModel((v) => v * 2, { delayMs: 5 }), neg: mapModel((v) => -v),
    sq: mapModel((v) => v * v, { delayMs: 2 }), sum3: sumModel,
  });
  const sched = createEnsembleScheduler(p, { host, pipeline: 'fan' });
  const item = makeItem({ inputs: [f32('IN', [0, 1, 2, 3])] });
  sched.enqueue(item);
  await item.settled;
  assert.equal(item.error, undefined, item.error?.message);
  // m = x+1; out = 2m - m + m^2 = m + m^2
  assert.deepEqual(values(item.responses[0]!.outputs[0]), [2, 6, 12, 20]);
  assert.equal(host.calls.filter((c) => c.model === 'sum3').length, 1);
});

test('nested pipeline: a step that is itself a pipeline, reached through the host', async () => {
  const innerCfg = pipeline('inner', { X: F4 }, { Y: F4 }, [
    { model: 'inc', in: { X: 'X' }, out: { Y: 't' } },
    { model: 'dbl', in: { X: 't' }, out: { Y: 'Y' } },
  ]);
  const innerPlan = plan(innerCfg, unary('inc'), unary('dbl'));
  const outerPlan = plan(pipeline('outer', { IN: F4 }, { OUT: F4 }, [
    { model: 'inner', in: { X: 'IN' }, out: { Y: 'a' } },
    { model: 'inc', in: { X: 'a' }, out: { Y: 'OUT' } },
  ]), innerCfg, unary('inc'), unary('dbl'));
  const models: Record<string, ModelFn> = { inc: mapModel((v) => v + 1), dbl: mapModel((v) => v * 2, { delayMs: 1 }) };
  const host = fnHost(models);
  models.inner = schedulerAsModel(createEnsembleScheduler(innerPlan, { host, pipeline: 'inner' }));
  const sched = createEnsembleScheduler(outerPlan, { host, pipeline: 'outer' });
  const item = makeItem({ inputs: [f32('IN', [1, 2, 3, 4])] });
  sched.enqueue(item);
  await item.settled;
  assert.equal(item.error, undefined, item.error?.message);
  assert.deepEqual(values(item.responses[0]!.outputs[0]), [5, 7, 9, 11]);
  assert.deepEqual(host.calls.map((c) => c.model), ['inner', 'inc', 'dbl', 'inc']);
});

/** A decoupled model sending one response per element of its input, then an empty final. */
const perElement: ModelFn = (req) => new Observable<InferenceResponse>((s) => {
  const xs = values(req.inputs[0]);
  let i = 0;
  const timer = setInterval(() => {
    if (i < xs.length) s.next({ ...response(req, [f32('Y', [xs[i]!, xs[i]!, xs[i]!, xs[i]!])]), final: false });
    else { s.next(response(req, [], true)); s.complete(); clearInterval(timer); }
    i++;
  }, 1);
  return () => clearInterval(timer);
});

test('decoupled step: N responses run the downstream steps N times and stream N pipeline responses, then a final', async () => {
  const gen = model('gen', { X: F4 }, { Y: F4 }, { decoupled: true });
  // 'slow' is a root-level branch joined with every decoupled response ('sum2'), and arrives late.
  const p = plan(pipeline('stream', { IN: F4 }, { OUT: F4 }, [
    { model: 'gen', in: { X: 'IN' }, out: { Y: 'tok' } },
    { model: 'slow', in: { X: 'IN' }, out: { Y: 'bias' } },
    { model: 'dbl', in: { X: 'tok' }, out: { Y: 'd' } },
    { model: 'sum2', in: { A: 'd', B: 'bias' }, out: { Y: 'OUT' } },
  ], { decoupled: true }), gen, unary('slow'), unary('dbl'), join('sum2', ['A', 'B']));
  const host = fnHost({ gen: perElement, slow: mapModel(() => 100, { delayMs: 8 }), dbl: mapModel((v) => v * 2), sum2: sumModel });
  const sched = createEnsembleScheduler(p, { host, pipeline: 'stream' });
  const item = makeItem({ inputs: [f32('IN', [1, 2, 3, 4])] });
  sched.enqueue(item);
  await item.settled;
  assert.equal(item.error, undefined, item.error?.message);
  assert.equal(item.finals, 1);
  assert.equal(item.responses.length, 4, 'one response per decoupled response (the final one is empty)');
  assert.ok(item.responses.every((r) => !r.final));
  assert.deepEqual(item.responses.map((r) => values(r.outputs[0])[0]!).sort((a, b) => a - b), [102, 104, 106, 108]);
  assert.equal(host.calls.filter((c) => c.model === 'dbl').length, 4);
  assert.equal(host.calls.filter((c) => c.model === 'sum2').length, 4);
  assert.equal(host.calls.filter((c) => c.model === 'slow').length, 1);
});

test('a decoupled step sending several responses in a non-decoupled pipeline fails the request clearly', async () => {
  const gen = model('gen', { X: F4 }, { Y: F4 }, { decoupled: true });
  const p = plan(pipeline('unary', { IN: F4 }, { OUT: F4 }, [{ model: 'gen', in: { X: 'IN' }, out: { Y: 'OUT' } }]), gen);
  const sched = createEnsembleScheduler(p, { host: fnHost({ gen: perElement }), pipeline: 'unary' });
  const item = makeItem({ inputs: [f32('IN', [1, 2, 3, 4])] });
  sched.enqueue(item);
  await item.settled;
  assert.ok(Errors.pipelineNotDecoupled.is(item.error), item.error?.message);
  assert.equal(item.responses.length, 0);
});

test('a failing step fails its request naming the step, keeps the cause\'s kind, cancels the sibling, spares other requests', async () => {
  const p = plan(pipeline('fails', { IN: F4 }, { OUT: F4 }, [
    { model: 'bad', in: { X: 'IN' }, out: { Y: 'a' } },
    { model: 'slow', in: { X: 'IN' }, out: { Y: 'b' } },
    { model: 'sum2', in: { A: 'a', B: 'b' }, out: { Y: 'OUT' } },
  ]), unary('bad'), unary('slow'), join('sum2', ['A', 'B']));
  let slowTornDown = 0;
  let slowFinished = 0;
  const host = fnHost({
    bad: (req) => new Observable((s) => {
      const t = setTimeout(() => {
        if (values(req.inputs[0])[0]! < 0) s.error(Errors.shapeMismatch('bad', 'X', '[4]', '[5]'));
        else { s.next(response(req, [f32('Y', values(req.inputs[0]))])); s.complete(); }
      }, 2);
      return () => clearTimeout(t);
    }),
    slow: mapModel((v) => v, { delayMs: 30, onTeardown: () => slowTornDown++ }),
    sum2: (req) => { slowFinished++; return sumModel(req); },
  });
  const sched = createEnsembleScheduler(p, { host, pipeline: 'fails' });
  const failing = makeItem({ inputs: [f32('IN', [-1, 0, 0, 0])] });
  const healthy = makeItem({ inputs: [f32('IN', [1, 1, 1, 1])] });
  sched.enqueue(failing);
  sched.enqueue(healthy);
  await failing.settled;
  assert.ok(Errors.stepFailed.is(failing.error));
  assert.equal(failing.error?.kind, 'INVALID_ARG', 'a bad input at a step stays 400-class');
  assert.match(failing.error?.message ?? '', /^in ensemble 'fails', unexpected shape for input 'X' for model 'bad'\. Expected \[[^\]]*\], got \[5\]/);
  assert.equal(slowTornDown, 1, 'the sibling step still running was cancelled');
  await healthy.settled;
  assert.equal(healthy.error, undefined);
  assert.deepEqual(values(healthy.responses[0]!.outputs[0]), [2, 2, 2, 2]);
  assert.equal(slowFinished, 1, 'only the healthy request reached the join');
  const st = sched.stepStats();
  assert.deepEqual(st.map((s) => [s.step, s.count, s.fail]), [['bad', 1, 1], ['slow', 1, 0], ['sum2', 1, 0]]);
});

test('a step whose response lacks a mapped output fails the request naming step and output', async () => {
  const p = plan(pipeline('lacks', { IN: F4 }, { OUT: F4 }, [{ model: 'm', in: { X: 'IN' }, out: { Y: 'OUT' } }]), unary('m'));
  const sched = createEnsembleScheduler(p, { host: fnHost({ m: mapModel((v) => v, { out: 'Z' }) }), pipeline: 'lacks' });
  const item = makeItem({ inputs: [f32('IN', [1, 2, 3, 4])] });
  sched.enqueue(item);
  await item.settled;
  assert.match(item.error?.message ?? '', /^in ensemble 'lacks', model 'm' returned no output 'Y' \(mapped to tensor 'OUT'\); at step 'm'$/);
});

test('an unknown model at run time (unloaded since compile) fails with the step named and NOT_FOUND kind', async () => {
  const p = plan(pipeline('gone', { IN: F4 }, { OUT: F4 }, [{ model: 'm', in: { X: 'IN' }, out: { Y: 'OUT' } }]), unary('m'));
  const sched = createEnsembleScheduler(p, { host: fnHost({}), pipeline: 'gone' });
  const item = makeItem({ inputs: [f32('IN', [1, 2, 3, 4])] });
  sched.enqueue(item);
  await item.settled;
  assert.equal(item.error?.kind, 'NOT_FOUND');
  assert.match(item.error?.message ?? '', /^in ensemble 'gone', Request for unknown model: 'm' is not found; at step 'm'$/);
});

test('cancelling mid-pipeline reaches the running step and the one queued in the host; nothing downstream starts', async () => {
  const p = plan(pipeline('cancel', { IN: F4 }, { OUT: F4 }, [
    { model: 'run', in: { X: 'IN' }, out: { Y: 'a' } },
    { model: 'queued', in: { X: 'IN' }, out: { Y: 'b' } },
    { model: 'sum2', in: { A: 'a', B: 'b' }, out: { Y: 'OUT' } },
  ]), unary('run'), unary('queued'), join('sum2', ['A', 'B']));
  const torn: string[] = [];
  let started = 0;
  const host = fnHost({
    run: mapModel((v) => v, { delayMs: 1000, onStart: () => started++, onTeardown: () => torn.push('run') }),
    // Waits in a queue (never starts executing) until cancelled.
    queued: () => new Observable(() => () => torn.push('queued')),
    sum2: sumModel,
  });
  const sched = createEnsembleScheduler(p, { host, pipeline: 'cancel' });
  const item = makeItem({ inputs: [f32('IN', [1, 2, 3, 4])] });
  sched.enqueue(item);
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(started, 1);
  assert.equal(sched.inflightCount(), 1);
  const t0 = performance.now();
  item.abort();
  assert.deepEqual(torn.sort(), ['queued', 'run'], 'both children were unsubscribed synchronously');
  assert.ok(performance.now() - t0 < 50);
  assert.equal(sched.inflightCount(), 0);
  assert.ok(!host.calls.some((c) => c.model === 'sum2'));
});

test('max_inflight_requests bounds requests of the whole pipeline; the rest wait before any step', async () => {
  const p = plan(pipeline('bounded', { IN: F4 }, { OUT: F4 }, [
    { model: 'a', in: { X: 'IN' }, out: { Y: 'm' } },
    { model: 'b', in: { X: 'm' }, out: { Y: 'OUT' } },
  ], { maxInflight: 2 }), unary('a'), unary('b'));
  assert.equal(p.maxInflightRequests, 2);
  let live = 0;
  let peak = 0;
  const track = (fn: ModelFn, enter: boolean, leave: boolean): ModelFn => (req) => new Observable((s) => {
    if (enter) { live++; peak = Math.max(peak, live); }
    return fn(req).subscribe({ next: (r) => s.next(r), error: (e) => s.error(e), complete: () => { if (leave) live--; s.complete(); } });
  });
  const host = fnHost({ a: track(mapModel((v) => v + 1, { delayMs: 5 }), true, false), b: track(mapModel((v) => v * 10, { delayMs: 5 }), false, true) });
  const sched = createEnsembleScheduler(p, { host, pipeline: 'bounded' });
  const items = Array.from({ length: 6 }, (_, i) => makeItem({ inputs: [f32('IN', [i, i, i, i])] }));
  for (const it of items) sched.enqueue(it);
  assert.equal(sched.inflightCount(), 6);
  assert.equal(host.calls.length, 2, 'only two requests reached their first step');
  // A queued request cancelled while waiting never runs.
  items[5]!.abort();
  assert.equal(sched.inflightCount(), 5);
  await Promise.all(items.slice(0, 5).map((it) => it.settled));
  assert.equal(peak, 2);
  assert.deepEqual(items.slice(0, 5).map((it) => values(it.responses[0]!.outputs[0])[0]), [10, 20, 30, 40, 50]);
  assert.equal(host.calls.filter((c) => c.model === 'a').length, 5);
  assert.equal(sched.inflightCount(), 0);
});

test('stop(): queued requests fail UNAVAILABLE, running ones finish, later ones are refused', async () => {
  const p = plan(pipeline('stopping', { IN: F4 }, { OUT: F4 }, [{ model: 'a', in: { X: 'IN' }, out: { Y: 'OUT' } }], { maxInflight: 1 }), unary('a'));
  const sched = createEnsembleScheduler(p, { host: fnHost({ a: mapModel((v) => v, { delayMs: 5 }) }), pipeline: 'stopping' });
  const running = makeItem({ inputs: [f32('IN', [1, 2, 3, 4])] });
  const queued = makeItem({ inputs: [f32('IN', [1, 2, 3, 4])] });
  sched.enqueue(running);
  sched.enqueue(queued);
  const stopped = sched.stop();
  assert.equal(queued.error?.kind, 'UNAVAILABLE');
  await stopped;
  assert.equal(running.error, undefined);
  assert.equal(running.responses.length, 1);
  const late = makeItem({ inputs: [f32('IN', [1, 2, 3, 4])] });
  sched.enqueue(late);
  assert.equal(late.error?.kind, 'UNAVAILABLE');
});

test('requested outputs: only those are waited for and returned; an absent optional input is left out of the step', async () => {
  const opt = model('opt', { X: F4, Z: ['TYPE_FP32', [4], { optional: true }] }, { Y: F4 });
  const p = plan(pipeline('subset', { IN: F4, EXTRA: ['TYPE_FP32', [4], { optional: true }] }, { FAST: F4, SLOW: F4 }, [
    { model: 'opt', in: { X: 'IN', Z: 'EXTRA' }, out: { Y: 'FAST' } },
    { model: 'slow', in: { X: 'IN' }, out: { Y: 'SLOW' } },
  ]), opt, unary('slow'));
  const host = fnHost({ opt: mapModel((v) => v + 1), slow: mapModel((v) => v, { delayMs: 20 }) });
  const sched = createEnsembleScheduler(p, { host, pipeline: 'subset' });
  const item = makeItem({ inputs: [f32('IN', [1, 2, 3, 4])], outputs: [{ name: 'FAST' }] });
  sched.enqueue(item);
  await item.settled;
  assert.equal(item.error, undefined, item.error?.message);
  assert.deepEqual(item.responses[0]!.outputs.map((t) => t.name), ['FAST']);
  assert.deepEqual(host.calls.find((c) => c.model === 'opt')?.inputs.map((t) => t.name), ['X']);
});
