/** Load-time type errors: each names the problem and points (offset, length) at the token at fault. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileCondition, formatConditionProblem } from '../../../src/pipeline/index.js';
import { env, problemOf } from './condition-fixtures.js';

test('comparing a string tensor with a number points at the number', () => {
  const p = problemOf('lang == 3');
  assert.deepEqual([p.offset, p.length, p.at], [8, 1, '3']);
  assert.match(p.message, /cannot compare lang \(a string\) with 3 \(a number\)/);
  assert.equal(problemOf("score > 'x'").at, "'x'");
  assert.equal(problemOf('lang == count').at, 'count');
  assert.equal(problemOf('flag < true').at, '<');
});

test('an unknown tensor, with a did-you-mean over the tensors in scope', () => {
  const p = problemOf("max(p) > 0.5 and lnag == 'en'");
  assert.deepEqual([p.offset, p.length], [17, 4]);
  assert.match(p.message, /unknown tensor 'lnag' \(did you mean 'lang'\?\)/);
  assert.doesNotMatch(problemOf('zzzzzz == 1').message, /did you mean/);
  assert.match(problemOf('max == 1').message, /max is a function/);
});

test('an unknown function, with a did-you-mean over the functions', () => {
  const p = problemOf('argmx(p) == 1');
  assert.deepEqual([p.offset, p.length], [0, 5]);
  assert.match(p.message, /unknown function 'argmx' \(did you mean 'argmax'\?\)/);
});

test('a tensor of several values where one is expected suggests a summary', () => {
  const p = problemOf('p > 0.5');
  assert.deepEqual([p.at, p.offset], ['p', 0]);
  assert.match(p.message, /holds 3 values per request \(dims \[-1, 3\]\).*max\(p\).*any\(p == x\)/);
  assert.equal(problemOf("words == 'x'").at, 'words');
  // -1 dims are unknown: the count is checked at run time instead
  assert.equal(compileCondition('maybe > 0', env).problems.length, 0);
});

test('lists: one element type, in needs a list, items of the list type', () => {
  const p = problemOf("lang in ['en', 1, 'de']");
  assert.deepEqual([p.at, p.offset], ['1', 15]);
  assert.match(p.message, /a list holds one type/);
  assert.equal(problemOf("lang in 'en'").at, "'en'");
  assert.deepEqual(compileCondition('score in [1, 2]', env).problems, []);
  assert.equal(problemOf("count in ['a']").at, 'count');
  assert.equal(problemOf('shape(p) == 3').at, 'shape(p)');
});

test('arithmetic on strings, logic on numbers, a condition that is not a bool', () => {
  assert.equal(problemOf("lang + 1 == 2").at, 'lang');
  assert.match(problemOf("lang + 1 == 2").message, /'\+' needs a number/);
  assert.equal(problemOf('-lang == 1').at, 'lang');
  assert.equal(problemOf("score and true").at, 'score');
  assert.match(problemOf('max(p) + 1').message, /a condition needs a bool, but max\(p\) \+ 1 is a number/);
  assert.equal(problemOf("lang").at, 'lang');
});

test('function arguments: tensors, numeric tensors, labels, lists, comparisons', () => {
  assert.equal(problemOf('max(lang) > 1').at, 'lang');
  assert.match(problemOf('max(lang) > 1').message, /numeric tensor, but 'lang' is BYTES/);
  assert.equal(problemOf('size(1) > 1').at, '1');
  assert.match(problemOf("top1(logits) == 'a'").message, /needs labels, but tensor 'logits' has none.*argmax\(logits\)/);
  assert.equal(problemOf("top1(logits) == 'a'").at, 'logits');
  assert.equal(problemOf('len(p) == 1').at, 'p');
  assert.equal(problemOf('any(p)').at, 'p');
  assert.equal(problemOf('any(1 < 2)').at, '1 < 2');
  assert.equal(problemOf("any(p == 'x')").at, "'x'");
  assert.equal(problemOf('any(flags < true)').at, '<');
});

test('null, ?? and indexes', () => {
  assert.equal(problemOf('lang == null').at, 'lang');
  assert.match(problemOf('lang == null').message, /never null/);
  assert.equal(problemOf('params.x < null').at, '<');
  assert.equal(problemOf('(score ?? 1) > 0').at, 'score');
  assert.equal(problemOf('shape(p)[2] == 1').at, '2');
  assert.match(problemOf('shape(p)[2] == 1').message, /out of range: shape\(p\) has 2 items/);
  assert.equal(problemOf('shape(p)[1.5] == 1').at, '1.5');
  assert.equal(problemOf("shape(p)['a'] == 1").at, "'a'");
  assert.equal(problemOf('score[0] == 1').at, 'score');
});

test('every problem is reported, not only the first', () => {
  const { problems } = compileCondition("lang == 3 and nope > 1 and max(lang) > 0", env);
  assert.deepEqual(problems.map((p) => p.offset), [8, 14, 31]);
});

test('formatConditionProblem draws a caret under the token', () => {
  const source = 'lang == 3';
  const [problem] = compileCondition(source, env).problems;
  assert.equal(formatConditionProblem(source, problem!), `${problem!.message}\n    lang == 3\n            ^`);
});

test('the env may give datatypes in the model-config spelling; an unknown datatype is a problem', () => {
  const typed = (datatype: string) => ({ tensor: () => ({ datatype, dims: [1] }) });
  assert.deepEqual(compileCondition("t == 'x'", typed('TYPE_STRING')).problems, []);
  assert.deepEqual(compileCondition('t > 1', typed('TYPE_FP32')).problems, []);
  assert.match(compileCondition('t > 1', typed('FLOAT')).problems[0]!.message, /unknown datatype 'FLOAT'/);
});
