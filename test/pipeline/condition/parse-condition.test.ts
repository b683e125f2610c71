/** Lexing and parsing: literals, escapes, operators, precedence and the syntax errors' positions. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileCondition } from '../../../src/pipeline/index.js';
import { env, evaluate, problemOf } from './condition-fixtures.js';

test('number literals: integers, decimals, leading dot, exponents', () => {
  assert.equal(evaluate('1 + 2 == 3'), true);
  assert.equal(evaluate('1.5 * 2 == 3'), true);
  assert.equal(evaluate('.5 + .5 == 1'), true);
  assert.equal(evaluate('1e3 == 1000 and 2.5E-1 == 0.25 and 1e+2 == 100'), true);
  assert.equal(evaluate('7 / 2 == 3.5'), true);
});

test('string literals in either quote with escapes', () => {
  assert.equal(evaluate(`'it\\'s' == "it's"`), true);
  assert.equal(evaluate(`"a\\"b" == 'a"b'`), true);
  assert.equal(evaluate(`'\\u00e9' == 'é' and '\\\\' != '\\n'`), true);
  assert.equal(evaluate(`len(['a\\tb', "", '']) == 3`), true);
});

test('booleans, null and keywords against parameters', () => {
  assert.equal(evaluate('true and not false'), true);
  assert.equal(evaluate('params.x == null'), true);
  assert.equal(evaluate('params.in == 1 and params["a b"] == "c"', { in: 1, 'a b': 'c' }), true);
});

test('precedence: not binds looser than comparisons, and before or, * before +, ?? before comparisons', () => {
  assert.equal(evaluate('1 + 2 * 3 == 7'), true);
  assert.equal(evaluate('(1 + 2) * 3 == 9'), true);
  assert.equal(evaluate('10 - 2 - 3 == 5 and 8 / 2 / 2 == 2'), true);
  assert.equal(evaluate('true or false and false'), true);
  assert.equal(evaluate('(true or false) and false'), false);
  assert.equal(evaluate("not lang == 'de'"), true);
  assert.equal(evaluate("!lang == 'en'"), false);
  assert.equal(evaluate('-2 * -3 == 6 and - -1 == 1'), true);
  assert.equal(evaluate('params.top_k ?? 3 > 2'), true);
  assert.equal(evaluate('params.top_k ?? 1 + 1 == 2'), true);
  assert.equal(evaluate('true || false && false'), true);
});

test('in and not in against list literals', () => {
  assert.equal(evaluate("lang in ['de', 'en']"), true);
  assert.equal(evaluate("lang not in ['de', 'en']"), false);
  assert.equal(evaluate("not lang in ['de']"), true);
  assert.equal(evaluate('2 in [1, 2, 3,]'), true, 'a trailing comma is allowed');
  assert.equal(evaluate("lang in []"), false);
});

test('syntax errors point at the offending token', () => {
  assert.deepEqual(pick(problemOf("lang = 'en'")), { at: '=', message: "unexpected character '=' (compare with '==')" });
  assert.match(problemOf("lang == 'en").message, /string not closed/);
  assert.equal(problemOf("lang == 'en").at, "'en");
  assert.equal(problemOf("'\\q' == lang").at, '\\q');
  assert.equal(problemOf('1 < 2 < 3').at, '<');
  assert.equal(problemOf('3x == 1').at, '3x');
  assert.equal(problemOf("lang == 'en' lang").at, 'lang');
  assert.match(problemOf("lang == 'en' lang").message, /after a complete condition/);
  assert.equal(problemOf('(1 == 1').offset, 7, 'the end of the source');
  assert.match(problemOf('(1 == 1').message, /expected '\)'/);
  assert.equal(problemOf('max(p, p) > 1').at, 'max(p, p)');
  assert.equal(problemOf('params == 1').at, '==');
  assert.equal(problemOf('params[x] == 1').at, 'x');
  assert.equal(problemOf('tensor(lang) == 1').at, 'tensor');
  assert.equal(problemOf('1 == not true').at, 'not');
  assert.equal(problemOf('a && & b').at, '&');
});

test('an empty condition and deep nesting are refused, not crashed on', () => {
  assert.match(problemOf('   ').message, /empty/);
  const deep = `${'('.repeat(100)}true${')'.repeat(100)}`;
  assert.match(problemOf(deep).message, /nests deeper than 64/);
  const { problems } = compileCondition(`${'-'.repeat(5000)}1 == 1`, env);
  assert.equal(problems.length, 1);
});

test('tensor("...") names a tensor that is not an identifier', () => {
  assert.equal(evaluate('tensor("odd:0") == 7'), true);
  assert.equal(evaluate("tensor('lang') == lang"), true);
});

function pick(p: { at: string; message: string }) {
  return { at: p.at, message: p.message };
}
