/**
 * Run time: request parameters (present, missing, wrong type), the catalog errors a request can
 * cause, and that a condition's source is never run as JavaScript.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Errors } from '../../../src/errors.js';
import { compileCondition } from '../../../src/pipeline/index.js';
import { createTensor, type Tensor } from '../../../src/tensor/index.js';
import { compile, env, evaluate, problemOf, read } from './condition-fixtures.js';

const with1 = (name: string, t: Tensor) => (n: string): Tensor | undefined => (n === name ? t : read(n));

test('params: a present parameter compares by its value; an int64 (bigint) one as a number', () => {
  assert.equal(evaluate("params.mode == 'fast'", { mode: 'fast' }), true);
  assert.equal(evaluate('params.top_k > 3', { top_k: 5 }), true);
  assert.equal(evaluate('params.top_k > 3', { top_k: 5n }), true);
  assert.equal(evaluate('params.detect', { detect: true }), true);
  assert.equal(evaluate("params.mode in ['fast', 'slow']", { mode: 'slow' }), true);
  assert.equal(evaluate('params.a == params.b', { a: 2, b: 2 }), true);
  assert.equal(evaluate('params.a < params.b', { a: 1, b: 2 }), true);
  assert.equal(evaluate('params.top_k ?? 3 == 5', { top_k: 5 }), true);
});

test('params: a missing parameter is null; == / != / ?? hold on it, anything else makes the condition false', () => {
  assert.equal(evaluate('params.detect != false'), true);
  assert.equal(evaluate('params.detect != false', {}), true);
  assert.equal(evaluate('params.detect == null'), true);
  assert.equal(evaluate('params.detect != null'), false);
  assert.equal(evaluate("params.mode == 'fast'"), false);
  assert.equal(evaluate('params.top_k ?? 3 == 3'), true);
  assert.equal(evaluate('params.a ?? params.b ?? 7 == 7'), true);
  assert.equal(evaluate("params.mode in ['fast']"), false);
  assert.equal(evaluate('params.top_k > 3'), false);
  assert.equal(evaluate('not (params.top_k > 3)'), false, 'a missing operand makes the whole condition false');
  assert.equal(evaluate('params.detect'), false);
});

test('params: a parameter of the wrong type is INVALID_ARG naming the condition and the parameter', () => {
  const c = compile('params.top_k > 3');
  assert.throws(() => c.evaluate(read, { top_k: 'five' }), (e: unknown) => {
    assert.ok(Errors.conditionParamType.is(e));
    const err = e as Error & { kind: string };
    assert.equal(err.kind, 'INVALID_ARG');
    assert.equal(err.message, "condition 'params.top_k > 3': request parameter 'top_k' is a string but the condition uses it as a number; send it as a number");
    return true;
  });
  assert.throws(() => compile('params.detect != false').evaluate(read, { detect: 'no' }), (e) => Errors.conditionParamType.is(e));
  assert.throws(() => compile('params["a b"] ?? 1 == 1').evaluate(read, { 'a b': true }), /request parameter 'a b' is a bool/);
  assert.throws(() => compile('params.flag and true').evaluate(read, { flag: 1 }), (e) => Errors.conditionParamType.is(e));
});

test('a tensor with other than one element where one value is read: INVALID_ARG naming condition, tensor, count', () => {
  const c = compile('maybe > 0');
  assert.equal(c.evaluate(with1('maybe', createTensor('maybe', 'FP32', [1], [2])), undefined), true);
  assert.throws(() => c.evaluate(read, undefined), (e: unknown) => {
    assert.ok(Errors.conditionNotScalar.is(e));
    assert.equal((e as Error).message, "condition 'maybe > 0': tensor 'maybe' has 3 elements where the condition reads one value; compare a summary instead (max(), min(), any(), all(), top1())");
    return true;
  });
  // a batch of two through a batching pipeline's [-1, 1] tensor
  const batch = createTensor('score', 'FP32', [2, 1], [0.1, 0.9]);
  assert.throws(() => compile('score > 0.5').evaluate(with1('score', batch), undefined), /tensor 'score' has 2 elements/);
  assert.throws(() => compile("lang == 'en'").evaluate(with1('lang', createTensor('lang', 'BYTES', [0], [])), undefined), /has 0 elements/);
});

test('max/argmax/top1 of an empty tensor, an index past the run-time shape, a label file too short', () => {
  const empty = createTensor('p', 'FP32', [1, 0], []);
  assert.throws(() => compile('max(p) > 0').evaluate(with1('p', empty), undefined), (e) => Errors.conditionEmptyTensor.is(e) && /max\(p\) has no value/.test((e as Error).message));
  assert.throws(() => compile('shape(maybe)[0] > 0').evaluate(with1('maybe', createTensor('maybe', 'FP32', [], [1])), undefined), (e) => Errors.conditionIndexRange.is(e));
  const wide = createTensor('p', 'FP32', [1, 4], [0, 0, 0, 1]);
  assert.throws(() => compile("top1(p) == 'en'").evaluate(with1('p', wide), undefined), (e) => Errors.conditionLabelMissing.is(e) && (e as { kind: string }).kind === 'INTERNAL');
});

test('no eval: names of Object members and code-looking text are plain unknown tensors, parameters or functions', () => {
  assert.match(problemOf('constructor == 1').message, /unknown tensor 'constructor'/);
  assert.match(problemOf('__proto__ == 1').message, /unknown tensor '__proto__'/);
  assert.match(problemOf('constructor("return 1") == 1').message, /unknown function 'constructor'/);
  assert.match(problemOf('toString(p) == 1').message, /unknown function 'toString'/);
  assert.match(problemOf('hasOwnProperty(p)').message, /unknown function/);
  assert.match(problemOf("process.exit(1)").message, /unexpected '.'/);
  assert.match(problemOf("lang == `x").message, /unexpected character '`'/);
  assert.match(problemOf("p; 1").message, /unexpected character ';'/);
  // parameters are own properties only: Object.prototype's members are missing parameters
  assert.equal(evaluate('params.constructor == null and params.__proto__ == null and params.toString == null', { a: 1 }), true);
  assert.equal(evaluate('params.constructor == null'), true);
  // an env backed by a plain object still sees only what it answers for
  assert.equal(compileCondition('lang == "en"', env).problems.length, 0);
});

test('the compiled closures never call eval or Function', () => {
  const realEval = globalThis.eval;
  const RealFunction = globalThis.Function;
  const trap = () => { throw new Error('eval or Function was called'); };
  globalThis.eval = trap as typeof eval;
  globalThis.Function = trap as unknown as FunctionConstructor;
  try {
    const c = compile("max(p) > 0.5 and top1(p) in ['en', 'de'] and params.k ?? 1 > 0 and any(words == 'world')");
    assert.equal(c.evaluate(read, { k: 2 }), true);
  } finally {
    globalThis.eval = realEval;
    globalThis.Function = RealFunction;
  }
});
