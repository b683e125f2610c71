/**
 * A step whose model is unknown: its error stands alone for what its tensors would have caused (a
 * condition over one, a return or map output it fills, warnings about the step), while problems
 * about anything else are still all reported.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfigText, positionOf } from '../../src/config/index.js';
import { compilePipeline } from '../../src/pipeline/index.js';
import { F4, model, resolver } from './pipeline-fixtures.js';

const scorer = model('scorer', { X: F4 }, { S: F4 });

function compile(yaml: string) {
  const parsed = parseConfigText(yaml, 'p/config.yaml', 'yaml');
  assert.deepEqual(parsed.problems, []);
  return compilePipeline(parsed.config, resolver(scorer), (path, offset) => positionOf(parsed, path, offset), ['scorer']);
}

test('an unknown model in a switch and a map: one error per step, none for the tensors it would give', () => {
  const { plan, problems } = compile(`name: p
input:
  - { name: X, data_type: FP32, dims: [4] }
  - { name: XS, data_type: FP32, dims: [-1, 4] }
output:
  - { name: Y, data_type: FP32, dims: [4], optional: true }
  - { name: P, data_type: FP32, dims: [4], optional: true }
  - { name: YS, data_type: FP32, dims: [-1, 4] }
steps:
  - { model: langid_mlp, inputs: { X: X }, outputs: { P: p } }
  - switch:
      cases:
        - when: "top1(p) == 'eng'"
          steps:
            - { model: scorer, inputs: { X: X }, outputs: { S: Y } }
      default:
        - return: { outputs: { P: p } }
  - map:
      over: XS
      as: x
      steps:
        - { model: missing_too, inputs: { X: x }, outputs: { S: s } }
      outputs: { s: YS }
`);
  assert.equal(plan, undefined);
  assert.deepEqual(problems.map((p) => `${p.severity} ${p.line}:${p.col} ${p.unknownModel ?? ''}`), [
    'error 10:7 langid_mlp',
    'error 22:13 missing_too',
  ]);
});

test('problems that do not come from the unknown model are still reported beside it', () => {
  const { problems } = compile(`name: p
input:
  - { name: X, data_type: FP32, dims: [4] }
output:
  - { name: Y, data_type: FP32, dims: [4] }
  - { name: Z, data_type: FP32, dims: [4] }
steps:
  - { model: nowhere, inputs: { X: X }, outputs: { S: m } }
  - { model: scorer, inputs: { X: ghost }, outputs: { S: Y } }
`);
  const messages = problems.filter((p) => p.severity === 'error').map((p) => p.message);
  assert.equal(messages.length, 3, messages.join('\n'));
  assert.match(messages[0]!, /^output 'Z' for ensemble '[^']+' is not written; /);
  assert.match(messages[1]!, /unknown model 'nowhere'/);
  assert.match(messages[2]!, /reads tensor 'ghost'/);
});
