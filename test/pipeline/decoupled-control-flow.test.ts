/**
 * Control flow and decoupled steps: allowed before a decoupled step, refused after one (each of its
 * responses reruns what follows, while switches and returns act once per request) and inside a
 * map or loop body (which gathers one result per item).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { at, compileYaml, errorsAt, langid, sentiment } from './control-flow-fixtures.js';
import { model } from './pipeline-fixtures.js';

const streamer = model('streamer', { TEXT: ['TYPE_STRING', [1]] }, { TEXT: ['TYPE_STRING', [1]] }, { decoupled: true });

const yaml = (steps: string) => `name: routed
model_transaction_policy: { decoupled: true }
input:
  - { name: TEXT, data_type: BYTES, dims: [1] }
output:
  - { name: LABEL, data_type: BYTES, dims: [1], optional: true }
steps:
${steps}`;

test('a switch reading a decoupled step\'s output is refused at load, at each node it guards', () => {
  const text = yaml(`  - { model: streamer, inputs: { TEXT: TEXT }, outputs: { TEXT: part } }
  - { model: langid, inputs: { TEXT: part }, outputs: { LANGUAGE: lang, PROB: p } }
  - switch:
      cases:
        - when: "lang == 'en'"
          steps:
            - { model: sentiment, inputs: { TEXT: part }, outputs: { LABEL: LABEL } }
      default:
        - return: { outputs: { LABEL: { value: other } } }
`);
  const { plan, problems } = compileYaml(text, streamer, langid, sentiment);
  assert.equal(plan, undefined);
  assert.deepEqual(errorsAt(problems), [
    `${at(text, '{ model: sentiment')}: pipeline 'routed', step 'sentiment' (step[2].switch.cases[0].steps[0]): is guarded (switch#1 case 1) and follows decoupled step 'streamer' (step[0]), whose every response runs the steps after it again; control flow after a decoupled step is not supported: move it before that step, or into the decoupled model`,
    `${at(text, 'return:')}: pipeline 'routed', return 'return#1' (step[2].switch.default[0]): is a return and follows decoupled step 'streamer' (step[0]), whose every response runs the steps after it again; control flow after a decoupled step is not supported: move it before that step, or into the decoupled model`,
  ]);
});

test('control flow before a decoupled step compiles; plain steps after it still rerun per response', () => {
  const text = yaml(`  - { model: langid, inputs: { TEXT: TEXT }, outputs: { LANGUAGE: lang, PROB: p } }
  - model: streamer
    when: "lang == 'en'"
    inputs: { TEXT: TEXT }
    outputs: { TEXT: part }
  - { model: sentiment, inputs: { TEXT: part }, outputs: { LABEL: LABEL } }
`);
  const { plan, problems } = compileYaml(text, streamer, langid, sentiment);
  assert.deepEqual(errorsAt(problems), []);
  assert.equal(plan!.steps.find((s) => s.name === 'streamer')!.decoupled, true);
});

test('a decoupled step inside a map body is refused', () => {
  const text = `name: routed
input:
  - { name: TEXTS, data_type: BYTES, dims: [-1] }
output:
  - { name: OUT, data_type: BYTES, dims: [-1] }
steps:
  - map:
      over: TEXTS
      as: text
      steps:
        - { model: streamer, inputs: { TEXT: text }, outputs: { TEXT: part } }
      outputs: { part: OUT }
`;
  const errs = errorsAt(compileYaml(text, streamer).problems);
  assert.equal(errs.length, 1, errs.join('\n'));
  assert.match(errs[0]!, /step 'streamer' \(step\[0\]\.map\.steps\[0\]\): the model is decoupled \(it may stream several responses\), which a map body cannot gather; call it outside the map/);
});
