import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonExact, stringifyExact } from '../../src/protocol/index.js';

test('integers past 2^53 become exact bigints; everything else parses as JSON.parse does', () => {
  const text = '{"a":[1152921504606846977,-9223372036854775808,18446744073709551615,9007199254740991,-9007199254740991],'
    + '"f":[1.2345678901234567890,12345678901234567890e2,1e300],"s":"1234567890123456789","e":"x\\"12345678901234567890"}';
  const v = parseJsonExact(text) as Record<string, unknown[]>;
  assert.deepEqual(v.a, [2n ** 60n + 1n, -(2n ** 63n), 2n ** 64n - 1n, 9007199254740991, -9007199254740991]);
  assert.deepEqual(v.f, JSON.parse(text).f, 'fractions and exponents stay doubles');
  assert.equal(v.s, '1234567890123456789', 'digits inside strings are untouched');
  assert.equal(v.e, 'x"12345678901234567890');
  assert.deepEqual(parseJsonExact('{"n":[1,2,3]}'), { n: [1, 2, 3] });
  assert.throws(() => parseJsonExact('{"n":12345678901234567890'), SyntaxError);
});

test('stringifyExact prints bigints with every digit', () => {
  assert.equal(stringifyExact({ p: 2n ** 64n - 1n, q: [-(2n ** 63n)], s: 'x' }), '{"p":18446744073709551615,"q":[-9223372036854775808],"s":"x"}');
  assert.equal(stringifyExact(5n), '5');
  assert.equal(stringifyExact([1, 'a']), '[1,"a"]');
});

test('an integer literal past every datatype (more than 309 digits) is left to JSON.parse: ±Infinity, in linear time', () => {
  const edge = `-${'9'.repeat(309)}`;
  const v = parseJsonExact(`[${edge},${'1'.repeat(310)},-${'2'.repeat(1_000_000)}]`) as unknown[];
  assert.equal(v[0], -(10n ** 309n - 1n), '309 digits (and a sign) are still exact');
  assert.equal(v[1], Infinity);
  assert.equal(v[2], -Infinity, 'a million digits: no BigInt (which took about a second), no hang');
});
