/** Control-flow keys in configs: YAML carries them (nested steps desugared, positions kept), pbtxt and JSON refuse them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfigText, positionOf } from '../../src/config/index.js';

const YAML = `name: routed
input:
  - { name: TEXT, data_type: BYTES, dims: [1] }
output:
  - { name: LABEL, data_type: BYTES, dims: [1], optional: true }
steps:
  - switch:
      cases:
        - when: "lang == 'en'"
          steps:
            - { model: sentiment, version: 2, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }
      default:
        - return: { outputs: { LABEL: lang, SCORE: { value: 0.5 } } }
  - map: { over: T, as: t, steps: [{ model: a, inputs: { X: t }, outputs: { Y: y } }], outputs: { y: Y } }
`;

test('YAML: nested steps are desugared like top-level ones and return outputs take both spellings', () => {
  const p = parseConfigText(YAML, 'routed/config.yaml', 'yaml');
  assert.deepEqual(p.problems, []);
  const [sw, map] = p.config.ensemble_scheduling!.step;
  assert.deepEqual(sw!.switch!.cases![0]!.steps![0], { model_name: 'sentiment', model_version: 2, input_map: { TEXT: 'TEXT' }, output_map: { LABEL: 'LABEL' } });
  assert.deepEqual(sw!.switch!.default![0]!.return, { outputs: { LABEL: { tensor: 'lang' }, SCORE: { value: ['0.5'] } } });
  assert.equal(map!.map!.steps![0]!.model_name, 'a');
  assert.equal(p.config.output[0]!.optional, true);
  // A condition's text position is where its first character is (after the quote).
  assert.deepEqual(positionOf(p, 'ensemble_scheduling.step[0].switch.cases[0].when#text'), { file: 'routed/config.yaml', line: 9, col: 18 });
});

test('YAML: an unknown key inside a construct gets a "did you mean" at its position', () => {
  const p = parseConfigText(YAML.replace('over: T', 'ovr: T'), 'routed/config.yaml', 'yaml');
  assert.deepEqual(p.problems.map((x) => `${x.line}:${x.col}: ${x.message}`), [
    "14:12: model 'routed': unknown field 'ovr' in steps[1].map (map); did you mean 'over'?",
  ]);
});

test('pbtxt keeps Triton\'s schema: a control-flow key is refused, naming it and saying it is YAML-only', () => {
  const text = `name: "p"
platform: "ensemble"
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] optional: true } ]
ensemble_scheduling { step [ { model_name: "a" when: "x > 0" input_map { key: "X" value: "X" } output_map { key: "Y" value: "Y" } } ] }
`;
  const p = parseConfigText(text, 'p/config.pbtxt', 'pbtxt');
  assert.deepEqual(p.problems.map((x) => `${x.line}:${x.col}: ${x.message}`), [
    "4:55: model 'p': output[0].optional: 'optional' is pipeline control flow, which is YAML-only: config.pbtxt keeps Triton's ModelOutput schema; write this pipeline as config.yaml",
    "5:48: model 'p': ensemble_scheduling.step[0].when: 'when' is pipeline control flow, which is YAML-only: a step in config.pbtxt has Triton's fields only (model_name, model_version, input_map, output_map, model_namespace); write this pipeline as config.yaml",
  ]);
});

test('a JSON config refuses them too', () => {
  const p = parseConfigText(JSON.stringify({ name: 'p', platform: 'ensemble', ensemble_scheduling: { step: [{ model_name: 'a', switch: {} }] } }), 'p/config.json', 'json');
  assert.equal(p.problems.length, 1);
  assert.match(p.problems[0]!.message, /'switch' is pipeline control flow, which is YAML-only: a step in a JSON config has Triton's fields only \(model_name, /);
});

test('YAML: a step\'s unknown key lists and suggests the YAML spellings beside Triton\'s, at the path as written', () => {
  const typo = parseConfigText(YAML.replace('inputs: { X: t }', 'inputz: { X: t }'), 'routed/config.yaml', 'yaml');
  assert.deepEqual(typo.problems.map((x) => `${x.line}:${x.col}: ${x.message}`), [
    "14:48: model 'routed': unknown field 'inputz' in steps[1].map.steps[0] (step); did you mean 'inputs'?",
  ]);
  const unknown = parseConfigText(YAML.replace('- switch:', '- frobnicate: 1\n    switch:'), 'routed/config.yaml', 'yaml');
  assert.deepEqual(unknown.problems.map((x) => x.message), [
    "model 'routed': unknown field 'frobnicate' in steps[0] (step); known fields: model, version, inputs, outputs "
      + '(or model_name, model_version, input_map, output_map), model_namespace, when, switch, return, map, loop',
  ]);
  // A value under a renamed key is named by the key the user wrote (`inputs`, not input_map).
  const value = parseConfigText(YAML.replace('inputs: { X: t }', 'inputs: { X: [t] }'), 'routed/config.yaml', 'yaml');
  assert.match(value.problems[0]!.message, /: steps\[1\]\.map\.steps\[0\]\.inputs\.X: expected a string, got a list$/);
});

test('no message names an internal schema type (ModelEnsembling.Step, Pipeline.*)', () => {
  const head = YAML.slice(0, YAML.indexOf('steps:'));
  const bad = [
    YAML.replace('- switch:', '- frobnicate: 1\n    switch:'),
    YAML.replace('over: T', 'ovr: T'),
    `${head}steps:\n  - switch: 3\n  - return: 4\n  - loop: 5\n  - map: 6\n`,
    `${head}steps:\n  - switch: { cases: [1], dflt: [] }\n  - switch: { cases: [{ whn: x }] }\n  - loop: { max: 2, stps: [] }\n`,
    YAML.replace('SCORE: { value: 0.5 }', 'SCORE: { valu: 0.5 }'),
  ];
  for (const text of bad) {
    const p = parseConfigText(text, 'routed/config.yaml', 'yaml');
    assert.ok(p.problems.length > 0, text);
    for (const x of p.problems) assert.doesNotMatch(x.message, /ModelEnsembling|Pipeline\./, x.message);
  }
  const pbtxt = parseConfigText('name: "p"\nplatform: "ensemble"\nensemble_scheduling { step [ { model_name: "a" frob: 1 map: {} } ] }\n', 'p/config.pbtxt', 'pbtxt');
  assert.deepEqual(pbtxt.problems.map((x) => x.message), [
    "model 'p': unknown field 'frob' in ensemble_scheduling.step[0] (step); known fields: model_name, model_version, input_map, output_map, model_namespace",
    "model 'p': ensemble_scheduling.step[0].map: 'map' is pipeline control flow, which is YAML-only: a step in config.pbtxt has Triton's fields only "
      + '(model_name, model_version, input_map, output_map, model_namespace); write this pipeline as config.yaml',
  ]);
});
