/** The examples of docs/pipelines-conditions.md compile, so the page cannot drift from the language. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { compileCondition, type ConditionTensorInfo } from '../../../src/pipeline/index.js';

const PAGE = readFileSync(new URL('../../../docs/pipelines-conditions.md', import.meta.url), 'utf8');

const TENSORS = new Map<string, ConditionTensorInfo>([
  ['lang', { datatype: 'BYTES', dims: [1] }],
  ['lang_p', { datatype: 'FP32', dims: [-1, 4], labels: ['eng', 'deu', 'fra', 'spa'] }],
  ['scores', { datatype: 'FP32', dims: [-1, 10] }],
  ['boxes', { datatype: 'FP32', dims: [-1, 4] }],
  ['image', { datatype: 'FP32', dims: [-1, 3, -1, -1] }],
]);

test('every line of the first example block is a valid condition', () => {
  const block = /```text\n([\s\S]*?)```/.exec(PAGE)?.[1];
  assert.ok(block, 'the page opens with a text block of examples');
  const lines = block.split('\n').filter((l) => l.trim());
  assert.ok(lines.length >= 5);
  for (const source of lines) {
    assert.deepEqual(compileCondition(source, { tensor: (n) => TENSORS.get(n) }).problems, [], source);
  }
});

test('the functions table lists every function of the language, and the language has no other', () => {
  const documented = new Set([...PAGE.matchAll(/`([a-z0-9]+)\(/g)].map((m) => m[1]!));
  for (const fn of ['argmax', 'argmin', 'top1', 'max', 'min', 'sum', 'mean', 'size', 'rank', 'shape', 'len', 'any', 'all']) {
    assert.ok(documented.has(fn), `${fn}() is documented`);
  }
  const unknown = compileCondition('nosuchfn(lang)', { tensor: (n) => TENSORS.get(n) }).problems[0]!.message;
  const listed = /the functions are (.*)$/.exec(unknown)![1]!.split(', ');
  assert.deepEqual(listed.filter((f) => !documented.has(f)), []);
});
