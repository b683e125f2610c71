/** Every operator and function on real tensors of each kind (FP32, INT64, BYTES, BOOL, FP16). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTensor, type Tensor } from '../../../src/tensor/index.js';
import { compile, evaluate, read } from './condition-fixtures.js';

test('a single-element tensor compares as its value: BYTES as a string, BOOL as a bool, numbers as numbers', () => {
  assert.equal(evaluate("lang == 'en'"), true);
  assert.equal(evaluate("lang != 'en'"), false);
  assert.equal(evaluate("lang < 'fr' and lang >= 'en'"), true);
  assert.equal(evaluate('flag == true and flag'), true);
  assert.equal(evaluate('not flag'), false);
  assert.equal(evaluate('score > 0.7 and score <= 0.75 and score < 1 and score >= 0.75'), true);
  assert.equal(evaluate('score == 0.75'), true, 'FP32 0.75 is exact');
  assert.equal(evaluate('tensor("odd:0") * 2 - 4 == 10'), true);
});

test('INT64 reads as a number: exact to 2^53, rounded past it', () => {
  // count holds 2^53 + 1, which a double rounds to 2^53
  assert.equal(evaluate('count == 9007199254740992'), true);
  assert.equal(evaluate('count > 9007199254740991'), true);
  assert.equal(evaluate('sum(ids) == 8 and min(ids) == -7 and max(ids) == 12'), true);
});

test('argmax, argmin, top1, max, min, sum, mean over all elements', () => {
  assert.equal(evaluate('argmax(p) == 1 and argmin(p) == 0'), true);
  assert.equal(evaluate("top1(p) == 'de'"), true);
  assert.equal(evaluate("top1(p) in ['de', 'fr']"), true);
  assert.equal(evaluate('max(p) > 0.69 and max(p) < 0.71'), true);
  assert.equal(evaluate('min(logits) == -1 and max(logits) == 4 and argmax(logits) == 1'), true);
  assert.equal(evaluate('sum(logits) == 5 and mean(logits) == 5 / 3'), true);
  assert.equal(evaluate('max(half) == 1 and min(half) == -2 and argmin(half) == 1'), true, 'FP16 words are widened');
  assert.equal(evaluate('sum(flags) == 2'), true, 'BOOL counts as 0/1');
});

test('argmax ties go to the first index', () => {
  const c = compile('argmax(logits) == 0');
  const tied = createTensor('logits', 'FP32', [3], [5, 5, 1]);
  assert.equal(c.evaluate((n) => (n === 'logits' ? tied : undefined), undefined), true);
});

test('size, rank, shape and indexing, len', () => {
  assert.equal(evaluate('size(p) == 3 and rank(p) == 2'), true);
  assert.equal(evaluate('shape(p)[0] == 1 and shape(p)[1] == 3'), true);
  assert.equal(evaluate('3 in shape(p) and len(shape(p)) == 2'), true);
  assert.equal(evaluate('size(words) == 3 and len([1, 2]) == 2'), true);
  assert.equal(evaluate('[10, 20, 30][params.i] == 20', { i: 1 }), true);
});

test('any / all compare a tensor element by element', () => {
  assert.equal(evaluate('any(p > 0.5)'), true);
  assert.equal(evaluate('all(p > 0.5)'), false);
  assert.equal(evaluate('all(p > 0) and all(p < 1)'), true);
  assert.equal(evaluate('any(0.65 < p)'), true, 'the tensor may be on the right');
  assert.equal(evaluate('all(0.05 >= p)'), false);
  assert.equal(evaluate("any(words == 'world') and any(words == 'héllo') and not any(words == 'x')"), true);
  assert.equal(evaluate("any(words != '')"), true);
  assert.equal(evaluate('any(ids == -7) and all(ids >= -7) and all(ids != 5)'), true);
  assert.equal(evaluate('any(flags) and not all(flags) and any(flags == false)'), true);
  assert.equal(evaluate('any(logits > score)'), true, 'the value may be a single-element tensor');
  assert.equal(evaluate('any(p > params.t)', { t: 0.9 }), false);
});

test('any / all of an empty tensor: false / true', () => {
  const empty = createTensor('p', 'FP32', [1, 0], []);
  const r = (n: string): Tensor | undefined => (n === 'p' ? empty : read(n));
  assert.equal(compile('any(p > 0)').evaluate(r, undefined), false);
  assert.equal(compile('all(p > 0)').evaluate(r, undefined), true);
  assert.equal(compile('size(p) == 0 and sum(p) == 0').evaluate(r, undefined), true);
});

test('arithmetic: + - * / and unary minus; division by zero gives Infinity, NaN compares false', () => {
  assert.equal(evaluate('score * 4 == 3 and score + 0.25 == 1 and score - 1 == -0.25 and score / 0.25 == 3'), true);
  assert.equal(evaluate('-score < 0'), true);
  assert.equal(evaluate('1 / 0 > 1e308'), true);
  assert.equal(evaluate('0 / 0 == 0 / 0'), false);
});

test('boolean logic short-circuits and accepts both spellings', () => {
  assert.equal(evaluate("lang == 'en' and flag"), true);
  assert.equal(evaluate("lang == 'en' && !flag"), false);
  assert.equal(evaluate("lang == 'de' or score > 0.5"), true);
  assert.equal(evaluate("lang == 'de' || score > 0.9"), false);
  // the right side is never evaluated: its single-element check would throw
  assert.equal(evaluate("lang == 'de' and maybe > 0"), false);
  assert.equal(evaluate("lang == 'en' or maybe > 0"), true);
});

test('reads lists each tensor once, in order of first use', () => {
  assert.deepEqual(compile("max(p) > 0.5 and top1(p) == lang or any(p > score)").reads, ['p', 'lang', 'score']);
  assert.deepEqual(compile('params.a == 1').reads, []);
});

test('a condition reading an absent (SKIPPED) tensor is false, whatever the rest says', () => {
  const c = compile("not (lang == 'xx')");
  assert.equal(c.evaluate(read, undefined), true);
  assert.equal(c.evaluate(() => undefined, undefined), false);
  assert.equal(compile("params.force == true or lang == 'en'").evaluate((n) => (n === 'lang' ? undefined : read(n)), { force: false }), false);
});
