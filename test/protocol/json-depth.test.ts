import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH, checkJsonDepth, jsonNestsDeeper } from '../../src/protocol/index.js';
import { TributaryError } from '../../src/errors.js';

/** The depth of parsed JSON, walked without recursion (the reference the byte scan must agree with). */
function depthOf(v: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    max = Math.max(max, d);
    for (const child of Object.values(x)) stack.push([child, d + 1]);
  }
  return max;
}

/** Random JSON whose strings are full of brackets, quotes and escapes. */
function randomJson(seed: number, depth: number): unknown {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const strings = ['[[[', ']]]}}', '"{"', '\\"[', 'é[ü]', '\\\\', '', 'plain'];
  const gen = (d: number): unknown => {
    const r = rnd();
    if (d <= 0 || r < 0.25) return r < 0.1 ? strings[Math.floor(rnd() * strings.length)] : r < 0.2 ? rnd() * 1e6 : true;
    const n = Math.floor(rnd() * 4);
    if (r < 0.6) return Array.from({ length: n }, () => gen(d - 1));
    return Object.fromEntries(Array.from({ length: n }, (_, i) => [`${strings[i % strings.length]}${i}`, gen(d - 1)]));
  };
  return gen(depth);
}

test('the byte scan agrees with the parsed depth, strings full of brackets and quotes included', () => {
  for (let seed = 1; seed <= 400; seed++) {
    const value = randomJson(seed, 12);
    const text = JSON.stringify(value);
    const depth = depthOf(value);
    for (const max of [0, 1, 2, 3, 5, depth - 1, depth, depth + 1].filter((m) => m >= 0)) {
      // every byte offset, so the word-at-a-time path meets every alignment
      const padded = Buffer.from(' '.repeat(seed % 4) + text);
      const view = padded.subarray(seed % 4);
      assert.equal(jsonNestsDeeper(view, max), depth > max, `seed ${seed}, depth ${depth}, max ${max}: ${text}`);
    }
  }
});

test('deep nesting is found wherever it is, and long flat or wide text is not', () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  assert.equal(jsonNestsDeeper(Buffer.from(deep(MAX_JSON_DEPTH))), false);
  assert.equal(jsonNestsDeeper(Buffer.from(deep(MAX_JSON_DEPTH + 1))), true);
  assert.equal(jsonNestsDeeper(Buffer.from(`{"data":[${'1.5,'.repeat(100_000)}1],"x":${deep(MAX_JSON_DEPTH + 1)}}`)), true);
  assert.equal(jsonNestsDeeper(Buffer.from(`[${'[1,2,3],'.repeat(100_000)}[]]`)), false, 'many rows, depth 2');
  assert.equal(jsonNestsDeeper(Buffer.from(`["${'['.repeat(1000)}"]`)), false, 'brackets inside a string');
  assert.equal(jsonNestsDeeper(Buffer.from(`["\\"${'['.repeat(1000)}"]`)), false, 'after an escaped quote');
});

test('checkJsonDepth refuses with TRB_REQUEST_JSON_TOO_DEEP naming the text', () => {
  assert.throws(() => checkJsonDepth(Buffer.from('['.repeat(10_000)), 'inference request'), (e: unknown) =>
    e instanceof TributaryError && e.code === 'TRB_REQUEST_JSON_TOO_DEEP' && e.kind === 'INVALID_ARG'
    && /^JSON nesting depth exceeds maximum allowed limit \(100\); the inference request JSON nests arrays and objects more than 100 levels deep/.test(e.message));
});
