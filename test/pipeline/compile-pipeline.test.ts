import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfigText, positionOf } from '../../src/config/index.js';
import { compilePipeline, type PipelineProblem } from '../../src/pipeline/index.js';
import { F4, model, pipeline, resolver } from './pipeline-fixtures.js';

const a = model('a', { X: F4 }, { Y: F4 });
const two = model('two', { L: F4, R: F4 }, { S: F4 });
const errors = (ps: PipelineProblem[]) => ps.filter((p) => p.severity === 'error');
const warnings = (ps: PipelineProblem[]) => ps.filter((p) => p.severity === 'warning');

test('a chain written out of order compiles to a plan in topological order', () => {
  const p = pipeline('chain', { IN: F4 }, { OUT: F4 }, [
    { model: 'a', in: { X: 'mid' }, out: { Y: 'OUT' } },
    { model: 'a', version: 3, in: { X: 'IN' }, out: { Y: 'mid' } },
  ]);
  const { plan, problems } = compilePipeline(p, resolver(a));
  assert.deepEqual(problems, []);
  assert.ok(plan);
  assert.deepEqual(plan.steps.map((s) => s.configIndex), [1, 0]);
  assert.deepEqual(plan.steps.map((s) => s.name), ['a#1', 'a#0']);
  assert.equal(plan.steps[0]!.version, '3');
  assert.equal(plan.steps[1]!.version, '', 'version -1 is the latest');
  assert.deepEqual(plan.consumers.get('mid'), [1]);
  assert.deepEqual(plan.steps[0]!.requestedOutputs, [{ name: 'Y' }]);
  assert.ok(Object.isFrozen(plan) && Object.isFrozen(plan.steps[0]) && Object.isFrozen(plan.steps[0]!.inputs));
});

test('a diamond: both branches consume the first step, the join consumes both', () => {
  const b = model('b', { X: F4 }, { Y: F4 });
  const c = model('c', { X: F4 }, { Y: F4 });
  const p = pipeline('diamond', { IN: F4 }, { OUT: F4 }, [
    { model: 'two', in: { L: 'l', R: 'r' }, out: { S: 'OUT' } },
    { model: 'b', in: { X: 'm' }, out: { Y: 'l' } },
    { model: 'a', in: { X: 'IN' }, out: { Y: 'm' } },
    { model: 'c', in: { X: 'm' }, out: { Y: 'r' } },
  ]);
  const { plan, problems } = compilePipeline(p, resolver(a, b, c, two));
  assert.deepEqual(problems, []);
  assert.ok(plan);
  const pos = (name: string) => plan.steps.find((s) => s.name === name)!.position;
  assert.equal(pos('a'), 0);
  assert.equal(pos('two'), 3);
  assert.deepEqual(plan.consumers.get('m'), [pos('b'), pos('c')].sort());
});

test('unknown step model, unknown tensor, double producer and missing output are each reported at once', () => {
  const p = pipeline('bad', { IN: F4 }, { OUT: F4, OTHER: F4 }, [
    { model: 'nope', in: { X: 'IN' }, out: { Y: 'm' } },
    { model: 'a', in: { X: 'ghost' }, out: { Y: 'OUT' } },
    { model: 'a', in: { X: 'm' }, out: { Y: 'OUT' } },
  ]);
  const { plan, problems } = compilePipeline(p, resolver(a));
  assert.equal(plan, undefined);
  const errs = errors(problems);
  const find = (re: RegExp) => errs.find((e) => re.test(e.message));
  const unknown = find(/unknown model 'nope'/);
  assert.ok(unknown, JSON.stringify(errs));
  assert.equal(unknown.path, 'ensemble_scheduling.step[0].model_name');
  assert.match(unknown.message, /pipeline 'bad', step 'nope' \(step\[0\]\)/);
  const ghost = find(/reads tensor 'ghost'/);
  assert.ok(ghost);
  assert.equal(ghost.path, 'ensemble_scheduling.step[1].input_map.X');
  assert.match(ghost.message, /pipeline 'bad', step 'a#1'.*input 'X' reads tensor 'ghost', which is neither a pipeline input nor any step's output/);
  const twice = find(/tensor 'OUT' is produced more than once/);
  assert.ok(twice);
  assert.match(twice.message, /step 'a#1' \(step\[1\], model 'a'\) output 'Y' and step 'a#2' \(step\[2\], model 'a'\) output 'Y'/);
  assert.equal(twice.path, 'ensemble_scheduling.step[2].output_map.Y');
  const never = find(/^output 'OTHER' for ensemble '[^']+' is not written; /);
  assert.ok(never);
  assert.equal(never.path, 'output[1]');
  assert.equal(errs.length, 4, JSON.stringify(errs, null, 1));
});

test('a pipeline input written to by a step is a double producer', () => {
  const p = pipeline('p', { IN: F4 }, { OUT: F4 }, [
    { model: 'a', in: { X: 'IN' }, out: { Y: 'OUT' } },
    { model: 'a', in: { X: 'OUT' }, out: { Y: 'IN' } },
  ]);
  const errs = errors(compilePipeline(p, resolver(a)).problems);
  assert.ok(errs.some((e) => /tensor 'IN' is produced more than once \(by the pipeline input and step 'a#1'/.test(e.message)), JSON.stringify(errs));
});

test('cycles are reported with the steps of the loop in order', () => {
  const b = model('b', { X: F4 }, { Y: F4 });
  const c = model('c', { X: F4 }, { Y: F4 });
  const p = pipeline('loop', { IN: F4 }, { OUT: F4 }, [
    { model: 'two', in: { L: 'IN', R: 'back' }, out: { S: 'x' } },
    { model: 'b', in: { X: 'x' }, out: { Y: 'y' } },
    { model: 'c', in: { X: 'y' }, out: { Y: 'back' } },
    { model: 'a', in: { X: 'y' }, out: { Y: 'OUT' } },
  ]);
  const { plan, problems } = compilePipeline(p, resolver(a, b, c, two));
  assert.equal(plan, undefined);
  const cyc = errors(problems).filter((e) => /cycle/.test(e.message));
  assert.equal(cyc.length, 1);
  assert.match(cyc[0]!.message, /pipeline 'loop': steps form a cycle 'two' -> 'b' -> 'c' -> 'two'/);
  assert.equal(cyc[0]!.path, 'ensemble_scheduling.step[0]');
});

test('a step reading its own output is a one-step cycle', () => {
  const p = pipeline('self', { IN: F4 }, { OUT: F4 }, [
    { model: 'two', in: { L: 'IN', R: 'OUT' }, out: { S: 'OUT' } },
  ]);
  const errs = errors(compilePipeline(p, resolver(two)).problems);
  assert.ok(errs.some((e) => /cycle 'two' -> 'two'/.test(e.message)), JSON.stringify(errs));
});

test('datatype and dims must agree between producer and consumer, pipeline outputs included', () => {
  const ints = model('ints', { X: F4 }, { Y: ['TYPE_INT64', [4]] });
  const wide = model('wide', { X: ['TYPE_FP32', [8]] }, { Y: ['TYPE_FP32', [-1]] });
  const p = pipeline('types', { IN: F4 }, { OUT: F4, OUT2: ['TYPE_FP32', [2]] }, [
    { model: 'ints', in: { X: 'IN' }, out: { Y: 'i' } },
    { model: 'a', in: { X: 'i' }, out: { Y: 'OUT' } },
    { model: 'wide', in: { X: 'IN' }, out: { Y: 'OUT2' } },
  ]);
  const errs = errors(compilePipeline(p, resolver(a, ints, wide)).problems);
  const dt = errs.find((e) => e.path === 'ensemble_scheduling.step[1].input_map.X');
  assert.ok(dt, JSON.stringify(errs));
  assert.match(dt.message, /^in ensemble types, ensemble tensor i: inconsistent data type: TYPE_INT64 is inferred from model ints while TYPE_FP32 is inferred from model a; pipeline 'types', step 'a' \(step\[1\]\): input 'X' expects FP32 \[4\] but tensor 'i' from step 'ints' \(step\[0\]\) output 'Y' is INT64 \[4\]$/);
  const dims = errs.find((e) => e.path === 'ensemble_scheduling.step[2].input_map.X');
  assert.ok(dims);
  assert.match(dims.message, /^in ensemble [^,]+, ensemble tensor IN: inconsistent shape: .*; .*input 'X' expects FP32 \[8\] but tensor 'IN' from the pipeline input is FP32 \[4\]$/);
  // [-1] from the producer is compatible with [2] in length... but rank 1 vs rank 1: -1 matches 2
  assert.equal(errs.length, 2, JSON.stringify(errs, null, 1));
});

test('batching: a batching step\'s max_batch_size must reach the pipeline\'s; a non-batching step may join (Triton)', () => {
  const small = model('small', { X: F4 }, { Y: F4 }, { mbs: 4 });
  const none = model('none', { X: F4 }, { Y: F4 });
  const big = model('big', { X: F4 }, { Y: F4 }, { mbs: 16 });
  const p = pipeline('batched', { IN: F4 }, { OUT: F4 }, [
    { model: 'big', in: { X: 'IN' }, out: { Y: 'b' } },
    { model: 'small', in: { X: 'b' }, out: { Y: 'c' } },
    { model: 'none', in: { X: 'c' }, out: { Y: 'OUT' } },
  ], { mbs: 8 });
  const errs = errors(compilePipeline(p, resolver(small, none, big)).problems);
  assert.equal(errs.length, 1, JSON.stringify(errs, null, 1));
  assert.match(errs[0]!.message, /^ensemble batched allows maximum batch size 8, but it contains model small which only allows maximum batch size to be 4; pipeline 'batched', step 'small' \(step\[1\]\)/);

  // A non-batching pipeline may feed a batching step when its dims spell the batch dim out.
  const q = pipeline('explicit', { IN: ['TYPE_FP32', [1, 4]] }, { OUT: ['TYPE_FP32', [2, 4]] }, [
    { model: 'big', in: { X: 'IN' }, out: { Y: 'OUT' } },
  ]);
  assert.deepEqual(compilePipeline(q, resolver(big)).problems, []);
  // Dims equal without the batch dim agree too (ValidateTensorConsistency compares both ways).
  const r = pipeline('rank', { IN: F4 }, { OUT: ['TYPE_FP32', [-1, 4]] }, [{ model: 'big', in: { X: 'IN' }, out: { Y: 'OUT' } }]);
  assert.deepEqual(compilePipeline(r, resolver(big)).problems, []);
  // ... but a shape that matches neither way is refused with Triton's phrase.
  const w = pipeline('wrong', { IN: ['TYPE_FP32', [4, 1]] }, { OUT: ['TYPE_FP32', [-1, 4]] }, [{ model: 'big', in: { X: 'IN' }, out: { Y: 'OUT' } }]);
  const wrong = errors(compilePipeline(w, resolver(big)).problems);
  assert.equal(wrong.length, 1, JSON.stringify(wrong, null, 1));
  assert.match(wrong[0]!.message, /^in ensemble [^,]+, ensemble tensor IN: inconsistent shape: .*input 'X' expects FP32 \[-1,4\] but tensor 'IN' from the pipeline input is FP32 \[4,1\]$/);
});

test('mixed batching: the plan bridges a batch dim of 1 only where a tensor crosses the divide', () => {
  const none = model('none', { X: ['TYPE_FP32', [1, 4]] }, { Y: ['TYPE_FP32', [1, 4]] });
  const big = model('big', { X: F4 }, { Y: F4 }, { mbs: 16 });
  // Batching pipeline: IN [-1,4] -> none (dims [1,4], batch dim explicit) -> big -> OUT.
  const p = pipeline('mixed', { IN: F4 }, { OUT: F4 }, [
    { model: 'none', in: { X: 'IN' }, out: { Y: 'mid' } },
    { model: 'big', in: { X: 'mid' }, out: { Y: 'OUT' } },
  ], { mbs: 8 });
  const { plan, problems } = compilePipeline(p, resolver(none, big));
  assert.deepEqual(problems, []);
  assert.ok(plan);
  assert.deepEqual(plan.steps[0]!.inputs[0]!.bridge, { mode: 'strip', dims: [1, 4] });
  assert.deepEqual(plan.steps[1]!.inputs[0]!.bridge, { mode: 'add', dims: [4] });
  assert.equal(plan.outputs[0]!.bridge, undefined, 'big batches like the pipeline');
  // Non-batching pipeline -> batching step -> OUT: the output is bridged back.
  const n = pipeline('nb', { IN: F4 }, { OUT: F4 }, [{ model: 'big', in: { X: 'IN' }, out: { Y: 'OUT' } }]);
  const nbPlan = compilePipeline(n, resolver(big)).plan;
  assert.ok(nbPlan);
  assert.deepEqual(nbPlan.steps[0]!.inputs[0]!.bridge, { mode: 'add', dims: [4] });
  assert.deepEqual(nbPlan.outputs[0]!.bridge, { mode: 'strip', dims: [4] });
});

test('mapped names must exist on the step model and required inputs must be mapped', () => {
  const p = pipeline('names', { IN: F4, IN2: F4 }, { OUT: F4 }, [
    { model: 'two', in: { L: 'IN', WRONG: 'IN2' }, out: { S: 'OUT', NOPE: 'extra' } },
  ]);
  const errs = errors(compilePipeline(p, resolver(two)).problems);
  const byPath = new Map(errs.map((e) => [e.path, e.message]));
  assert.match(byPath.get('ensemble_scheduling.step[0].input_map.WRONG') ?? '', /^in ensemble names, ensemble tensor IN2 is mapping to non-existing input WRONG in model two; .*model 'two' has no input 'WRONG'; its inputs are 'L', 'R'/);
  assert.match(byPath.get('ensemble_scheduling.step[0].output_map.NOPE') ?? '', /^in ensemble names, ensemble tensor extra is mapped from non-existing output NOPE in model two; .*model 'two' has no output 'NOPE'; its outputs are 'S'/);
  assert.match(byPath.get('ensemble_scheduling.step[0].input_map') ?? '', /^in ensemble names, input R in model two is not mapped to any ensemble tensors; pipeline 'names', step 'two' \(step\[0\]\): add input 'R' to input_map/);
  assert.equal(errs.length, 3, JSON.stringify(errs, null, 1));
  // Optional model inputs may stay unmapped.
  const opt = model('opt', { X: F4, Z: ['TYPE_FP32', [4], { optional: true }] }, { Y: F4 });
  const ok = pipeline('uses_opt', { IN: F4 }, { OUT: F4 }, [{ model: 'opt', in: { X: 'IN' }, out: { Y: 'OUT' } }]);
  assert.deepEqual(compilePipeline(ok, resolver(opt)).problems, []);
});

test('unused outputs and steps that reach no pipeline output are warnings; the plan still compiles', () => {
  const fork = model('fork', { X: F4 }, { A: F4, B: F4 });
  const p = pipeline('warn', { IN: F4, SPARE: F4 }, { OUT: F4 }, [
    { model: 'fork', in: { X: 'IN' }, out: { A: 'OUT', B: 'unused' } },
    { model: 'a', in: { X: 'IN' }, out: { Y: 'dead' } },
    { model: 'two', in: { L: 'IN', R: 'IN' }, out: { S: 'dead2' } },
    { model: 'b', in: { X: 'dead2' }, out: { Y: 'dead3' } },
  ]);
  const b = model('b', { X: F4 }, { Y: F4 });
  const { plan, problems } = compilePipeline(p, resolver(a, b, fork, two));
  assert.ok(plan, JSON.stringify(problems));
  const w = warnings(problems);
  const byPath = new Map(w.map((e) => [e.path, e.message]));
  assert.match(byPath.get('ensemble_scheduling.step[0].output_map.B') ?? '', /step 'fork' \(step\[0\]\): output 'B' \(tensor 'unused'\) is never used/);
  assert.match(byPath.get('ensemble_scheduling.step[1]') ?? '', /step 'a' \(step\[1\]\): the step contributes to no pipeline output \(none of its outputs is consumed\)/);
  assert.match(byPath.get('ensemble_scheduling.step[2]') ?? '', /step 'two' .*its outputs feed only steps that reach no pipeline output/);
  assert.match(byPath.get('ensemble_scheduling.step[3]') ?? '', /step 'b' .*none of its outputs is consumed/);
  assert.match(byPath.get('input[1]') ?? '', /pipeline 'warn': input 'SPARE' is not used by any step/);
  assert.equal(w.length, 5, JSON.stringify(w, null, 1));
});

test('a pipeline may not call itself, directly or through a nested pipeline', () => {
  const inner = pipeline('inner', { IN: F4 }, { OUT: F4 }, [{ model: 'outer', in: { IN: 'IN' }, out: { OUT: 'OUT' } }]);
  const outer = pipeline('outer', { IN: F4 }, { OUT: F4 }, [{ model: 'inner', in: { IN: 'IN' }, out: { OUT: 'OUT' } }]);
  const errs = errors(compilePipeline(outer, resolver(inner, outer)).problems);
  assert.equal(errs.length, 1, JSON.stringify(errs));
  assert.match(errs[0]!.message, /model 'inner' calls pipeline 'outer' again \(through 'inner'\)/);
  const direct = pipeline('me', { IN: F4 }, { OUT: F4 }, [{ model: 'me', in: { IN: 'IN' }, out: { OUT: 'OUT' } }]);
  assert.match(errors(compilePipeline(direct, resolver()).problems)[0]!.message, /a pipeline cannot call itself/);
});

test('a decoupled step in a non-decoupled pipeline is a warning; the step is marked decoupled in the plan', () => {
  const gen = model('gen', { X: F4 }, { Y: F4 }, { decoupled: true });
  const p = pipeline('stream', { IN: F4 }, { OUT: F4 }, [{ model: 'gen', in: { X: 'IN' }, out: { Y: 'OUT' } }]);
  const r = compilePipeline(p, resolver(gen));
  assert.ok(r.plan);
  assert.equal(r.plan.steps[0]!.decoupled, true);
  assert.equal(r.plan.decoupled, false);
  assert.match(warnings(r.problems)[0]!.message, /model 'gen' is decoupled but the pipeline is not/);
  const d = compilePipeline(pipeline('stream', { IN: F4 }, { OUT: F4 }, [{ model: 'gen', in: { X: 'IN' }, out: { Y: 'OUT' } }], { decoupled: true }), resolver(gen));
  assert.deepEqual(d.problems, []);
  assert.equal(d.plan?.decoupled, true);
});

test('problems carry file:line:col of what the user wrote (pbtxt), through locate', () => {
  const text = [
    'name: "located"',
    'platform: "ensemble"',
    'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]',
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]',
    'ensemble_scheduling {',
    '  step [',
    '    {',
    '      model_name: "a"',
    '      model_version: -1',
    '      input_map { key: "X" value: "missing" }',
    '      output_map { key: "Y" value: "OUT" }',
    '    }',
    '  ]',
    '}',
  ].join('\n');
  const parsed = parseConfigText(text, '/repo/located/config.pbtxt', 'pbtxt');
  assert.deepEqual(parsed.problems, []);
  const { problems } = compilePipeline(parsed.config, resolver(a), (path, offset) => positionOf(parsed, path, offset));
  const e = errors(problems);
  assert.equal(e.length, 1, JSON.stringify(problems));
  assert.equal(e[0]!.file, '/repo/located/config.pbtxt');
  assert.equal(e[0]!.line, 10, JSON.stringify(e[0]));
  assert.ok((e[0]!.col ?? 0) > 1);
});

test('YAML `steps:` sugar compiles to the same plan', () => {
  const text = [
    'name: yaml_chain',
    'input: [{ name: IN, data_type: TYPE_FP32, dims: [4] }]',
    'output: [{ name: OUT, data_type: TYPE_FP32, dims: [4] }]',
    'steps:',
    '  - model: a',
    '    inputs: { X: IN }',
    '    outputs: { Y: mid }',
    '  - model: a',
    '    version: 2',
    '    inputs: { X: mid }',
    '    outputs: { Y: OUT }',
  ].join('\n');
  const parsed = parseConfigText(text, 'config.yaml', 'yaml');
  assert.deepEqual(parsed.problems, []);
  const { plan, problems } = compilePipeline(parsed.config, resolver(a));
  assert.deepEqual(problems, []);
  assert.deepEqual(plan?.steps.map((s) => [s.name, s.version, s.inputs[0]!.tensor]), [['a#0', '', 'IN'], ['a#1', '2', 'mid']]);
});

test('a config that is not a pipeline, or has no steps, is an error', () => {
  assert.match(errors(compilePipeline(a, resolver()).problems)[0]!.message, /model 'a' is not a pipeline/);
  const empty = pipeline('empty', { IN: F4 }, { OUT: F4 }, []);
  const errs = errors(compilePipeline(empty, resolver()).problems);
  assert.ok(errs.some((e) => /ensemble_scheduling has no steps/.test(e.message)));
});
