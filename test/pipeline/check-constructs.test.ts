/** Load checks of map, loop and return fields, each at its YAML position. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { at, compileYaml, errorsAt, recog, refine, routedYaml } from './control-flow-fixtures.js';

const ocr = (inputs: string, steps: string, outputs = '  - { name: OUT, data_type: FP32, dims: [4] }') =>
  `name: ocr\ninput:\n${inputs}\noutput:\n${outputs}\nsteps:\n${steps}`;
const STATE = '  - { name: STATE, data_type: FP32, dims: [4] }';

test('an unbounded loop is refused at the loop; a max out of range at the max', () => {
  const body = `      carry: { s: STATE }
      steps:
        - { model: refine, inputs: { S: s }, outputs: { S: s2 } }
      next: { s: s2 }
      outputs: { s: OUT }
`;
  const none = ocr(STATE, `  - loop:\n${body}`);
  assert.deepEqual(errorsAt(compileYaml(none, refine).problems),
    [`${at(none, 'loop:')}: pipeline 'ocr', loop 'loop#1' (step[0]): 'max' is required (1..10000); a loop must have a bound`]);
  const huge = ocr(STATE, `  - loop:\n      max: 20000\n${body}`);
  assert.deepEqual(errorsAt(compileYaml(huge, refine).problems),
    [`${at(huge, 'max:')}: pipeline 'ocr', loop 'loop#1' (step[0]): 'max' is 20000; it must be within 1..10000`]);
});

test('carry and next must name the same tensors, with one type', () => {
  const text = ocr(`${STATE}\n  - { name: N, data_type: INT32, dims: [4] }`, `  - loop:
      max: 3
      carry: { s: STATE, n: N }
      steps:
        - { model: refine, inputs: { S: s }, outputs: { S: s2 } }
      next: { s: s2, n: s2, q: s2 }
      outputs: { s: OUT }
`);
  const errs = errorsAt(compileYaml(text, refine).problems);
  assert.deepEqual(errs, [
    `${at(text, 'n: s2')}: pipeline 'ocr', loop 'loop#1' (step[0]): next value of 'n' (body tensor 's2') is FP32 [4] but 'n' is INT32 [4]; a carried tensor keeps one datatype and shape`,
    `${at(text, 'q: s2')}: pipeline 'ocr', loop 'loop#1' (step[0]): 'next' names 'q', which is not carried; did you mean 's'?`,
  ]);
});

test('a map over a scalar is refused: a map needs a list', () => {
  const text = ocr('  - { name: ONE, data_type: FP32, dims: [] }', `  - map:
      over: ONE
      as: x
      steps:
        - { model: refine, inputs: { S: x }, outputs: { S: y } }
      outputs: { y: OUT }
`);
  const errs = errorsAt(compileYaml(text, refine).problems);
  assert.ok(errs.includes(`${at(text, 'over:')}: pipeline 'ocr', map 'map#1' (step[0]): 'over' tensor 'ONE' is FP32 [], a scalar; a map needs a list (a tensor with at least one dimension)`), errs.join('\n'));
});

test('map over an unknown tensor, concurrency out of range, an item type the body model refuses', () => {
  const text = ocr('  - { name: CROPS, data_type: FP32, dims: [-1, 4] }', `  - map:
      over: CROP
      as: c
      concurrency: 5000
      steps:
        - { model: recog, inputs: { CROP: c }, outputs: { TEXT: t } }
      outputs: { t: OUT }
  - map:
      over: CROPS
      as: c
      steps:
        - { model: recog, inputs: { CROP: c }, outputs: { TEXT: t } }
      outputs: { t: OUT2 }
`, '  - { name: OUT, data_type: BYTES, dims: [-1] }\n  - { name: OUT2, data_type: BYTES, dims: [-1] }');
  const errs = errorsAt(compileYaml(text, recog).problems);
  assert.ok(errs.includes(`${at(text, 'over: CROP')}: pipeline 'ocr', map 'map#1' (step[0]): 'over' names tensor 'CROP', which is not produced before the map`), errs.join('\n'));
  assert.ok(errs.includes(`${at(text, 'concurrency:')}: pipeline 'ocr', map 'map#1' (step[0]): 'concurrency' is 5000; it must be within 1..1024`), errs.join('\n'));
  assert.ok(errs.some((e) => e.startsWith(at(text, 'CROP: c', 'over: CROPS')) && /input 'CROP' expects FP32 \[1,8\] but tensor 'c' from the pipeline input is FP32 \[1,4\]/.test(e)), errs.join('\n'));
});

test('a return names pipeline outputs (did you mean) and its literal must fit the output datatype', () => {
  const text = routedYaml(`  - return:
      outputs:
        LABLE: { value: x }
        SCORE: { value: high }
`, '  - { name: LABEL, data_type: BYTES, dims: [1], optional: true }\n  - { name: SCORE, data_type: FP32, dims: [1], optional: true }');
  const errs = errorsAt(compileYaml(text).problems);
  assert.ok(errs.includes(`${at(text, 'LABLE')}: pipeline 'routed', return 'return#1' (step[0]): 'LABLE' is not an output of the pipeline; did you mean 'LABEL'?`), errs.join('\n'));
  assert.ok(errs.includes(`${at(text, 'high')}: pipeline 'routed', return 'return#1' (step[0]): "high" is not a FP32 value (output SCORE is FP32)`), errs.join('\n'));
});

test('a map body reads only tensors produced before the map', () => {
  const text = ocr('  - { name: CROPS, data_type: FP32, dims: [-1, 8] }', `  - map:
      over: CROPS
      as: c
      steps:
        - { model: recog, inputs: { CROP: later }, outputs: { TEXT: t } }
      outputs: { t: OUT }
  - { model: recog, inputs: { CROP: CROPS }, outputs: { TEXT: later } }
`, '  - { name: OUT, data_type: BYTES, dims: [-1] }');
  const errs = errorsAt(compileYaml(text, recog).problems);
  assert.ok(errs.includes(`${at(text, 'CROP: later')}: pipeline 'ocr/map#1', step 'recog' (step[0].map.steps[0]): input 'CROP' reads tensor 'later', which is neither a pipeline input nor any step's output; a map body reads its own tensors and those produced before the map`), errs.join('\n'));
});
