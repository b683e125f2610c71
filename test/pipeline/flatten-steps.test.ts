/** The shape of a steps tree: one kind per step, no unreachable entries. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { at, compileYaml, errorsAt, langid, routedYaml, sentiment } from './control-flow-fixtures.js';

const LABEL_ONLY = '  - { name: LABEL, data_type: BYTES, dims: [1] }';

test('a step after an unconditional return is unreachable', () => {
  const text = routedYaml(`  - return: { outputs: { LABEL: { value: x } } }
  - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }
`, LABEL_ONLY);
  const errs = errorsAt(compileYaml(text, sentiment).problems);
  assert.deepEqual(errs, [`${at(text, '{ model: sentiment')}: pipeline 'routed': step[1] is unreachable: it comes after the unconditional return at step[0].return; remove it or give the return a 'when'`]);
});

test('a guarded return leaves what follows reachable', () => {
  const text = routedYaml(`  - { model: langid, inputs: { TEXT: TEXT }, outputs: { LANGUAGE: lang } }
  - return: { when: "lang != 'en'", outputs: { LABEL: { value: x } } }
  - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }
`, LABEL_ONLY);
  assert.deepEqual(errorsAt(compileYaml(text, langid, sentiment).problems), []);
});

test('cases after a literal true case, and the default, are unreachable', () => {
  const text = routedYaml(`  - switch:
      cases:
        - when: "true"
          steps: [{ model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }]
        - when: "false"
          steps: [{ model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }]
      default: [{ model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }]
`, LABEL_ONLY);
  assert.deepEqual(errorsAt(compileYaml(text, sentiment).problems), [
    `${at(text, 'when: "false"')}: pipeline 'routed': case 2 of 'switch#1' is unreachable: case 1's condition is always true`,
    `${at(text, 'default:')}: pipeline 'routed': the default of 'switch#1' is unreachable: case 1's condition is always true`,
  ]);
});

test('a step holds exactly one kind; a return inside a map body is refused', () => {
  const text = routedYaml(`  - model: sentiment
    inputs: { TEXT: TEXT }
    outputs: { LABEL: LABEL }
    return: { outputs: { LABEL: { value: x } } }
`, LABEL_ONLY);
  assert.ok(errorsAt(compileYaml(text, sentiment).problems).includes(
    `${at(text, 'model: sentiment')}: pipeline 'routed': each step needs exactly one of 'model', 'switch', 'return', 'map', 'loop'; step[0] has 'model' and 'return'`));
  const inMap = `name: m
input:
  - { name: T, data_type: BYTES, dims: [-1] }
output:
  - { name: OUT, data_type: BYTES, dims: [-1] }
steps:
  - map:
      over: T
      as: t
      steps:
        - return: { outputs: { OUT: t } }
      outputs: { t: OUT }
`;
  const errs = errorsAt(compileYaml(inMap).problems);
  assert.ok(errs.includes(`${at(inMap, 'return:')}: pipeline 'm/map#1': 'return' ends the whole pipeline and is not allowed inside a map or loop body; produce the body's outputs instead`), errs.join('\n'));
});
