/** Real tensors and the env a pipeline would give the condition compiler for them. */
import assert from 'node:assert/strict';
import { compileCondition, type Condition, type ConditionProblem, type ConditionTensorInfo } from '../../../src/pipeline/index.js';
import { createTensor, type Tensor } from '../../../src/tensor/index.js';

const INFOS = new Map<string, ConditionTensorInfo>([
  ['lang', { datatype: 'BYTES', dims: [1] }],
  ['words', { datatype: 'BYTES', dims: [3] }],
  ['p', { datatype: 'FP32', dims: [-1, 3], labels: ['en', 'de', 'fr'] }],
  ['logits', { datatype: 'FP32', dims: [3] }],
  ['score', { datatype: 'FP32', dims: [-1, 1] }],
  ['count', { datatype: 'INT64', dims: [1] }],
  ['ids', { datatype: 'INT64', dims: [4] }],
  ['flag', { datatype: 'BOOL', dims: [1] }],
  ['flags', { datatype: 'BOOL', dims: [3] }],
  ['half', { datatype: 'FP16', dims: [2] }],
  ['odd:0', { datatype: 'INT32', dims: [1] }],
  ['maybe', { datatype: 'FP32', dims: [-1] }],
]);

const TENSORS = new Map<string, Tensor>([
  ['lang', createTensor('lang', 'BYTES', [1], ['en'])],
  ['words', createTensor('words', 'BYTES', [3], ['héllo', 'world', ''])],
  ['p', createTensor('p', 'FP32', [1, 3], [0.1, 0.7, 0.2])],
  ['logits', createTensor('logits', 'FP32', [3], [-1, 4, 2])],
  ['score', createTensor('score', 'FP32', [1, 1], [0.75])],
  ['count', createTensor('count', 'INT64', [1], [2n ** 53n + 1n])],
  ['ids', createTensor('ids', 'INT64', [4], [3n, -7n, 12n, 0n])],
  ['flag', createTensor('flag', 'BOOL', [1], [true])],
  ['flags', createTensor('flags', 'BOOL', [3], [true, false, true])],
  // FP16 words: 0x3c00 = 1.0, 0xc000 = -2.0
  ['half', createTensor('half', 'FP16', [2], Uint16Array.of(0x3c00, 0xc000))],
  ['odd:0', createTensor('odd:0', 'INT32', [1], [7])],
  ['maybe', createTensor('maybe', 'FP32', [3], [1, 2, 3])],
]);

export const env = { tensor: (n: string) => INFOS.get(n), names: () => INFOS.keys() };
export const read = (n: string): Tensor | undefined => TENSORS.get(n);

export function compile(source: string): Condition {
  const { condition, problems } = compileCondition(source, env);
  assert.deepEqual(problems, [], source);
  assert.ok(condition, source);
  return condition;
}

export function evaluate(source: string, params?: Record<string, string | number | boolean | bigint>): boolean {
  return compile(source).evaluate(read, params);
}

/** The one problem compiling `source` gives; its offset/length as the text they cover. */
export function problemOf(source: string): ConditionProblem & { at: string } {
  const { condition, problems } = compileCondition(source, env);
  assert.equal(condition, undefined, source);
  assert.equal(problems.length, 1, `${source}: ${JSON.stringify(problems)}`);
  const p = problems[0]!;
  return { ...p, at: source.slice(p.offset, p.offset + p.length) };
}
