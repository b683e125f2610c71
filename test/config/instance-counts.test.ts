/**
 * Triton's core (SetDefaultInstanceCount) gives a CPU instance group with no count two instances
 * for onnxruntime and tensorflow, one for every other backend and for GPU groups; a count the
 * config gives is kept, and an explicit 0 is still refused by validation.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeConfig, parseConfigText, validateConfig, withInstanceCounts } from '../../src/config/index.js';

test('a group with no count gets the backend default once the backend is known', () => {
  const parsed = normalizeConfig({ name: 'm' }, { name: 'm' });
  assert.equal(parsed.instance_group[0]!.count, undefined, 'absent until the backend decides');
  assert.equal(withInstanceCounts({ ...parsed, backend: 'onnxruntime' }).instance_group[0]!.count, 2);
  assert.equal(withInstanceCounts({ ...parsed, backend: 'typescript' }).instance_group[0]!.count, 1);
  assert.equal(withInstanceCounts({ ...parsed, backend: 'identity' }).instance_group[0]!.count, 1);
});

test('GPU groups default to one instance; a count the config gives is kept', () => {
  const c = normalizeConfig({ name: 'm', backend: 'onnxruntime', instance_group: [{ kind: 'KIND_GPU' }, { count: 3 }, {}] } as object);
  assert.deepEqual(withInstanceCounts(c).instance_group.map((g) => g.count), [1, 3, 2]);
  assert.equal(c.instance_group[2]!.count, undefined, 'the input is not mutated');
});

test('an explicit count of 0 is still refused at validation', () => {
  const parsed = parseConfigText('name: "m"\nbackend: "onnxruntime"\ninstance_group [ { count: 0 } ]\n', 'm/config.pbtxt', 'pbtxt');
  const problems = validateConfig({ ...parsed, config: withInstanceCounts(parsed.config) }).filter((p) => p.severity === 'error');
  assert.ok(problems.some((p) => p.message.includes('count must be >= 1, got 0')), JSON.stringify(problems));
});
