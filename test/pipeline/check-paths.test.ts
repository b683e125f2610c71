/** Load checks along control-flow paths: every output on every path, returns complete, partial tensors read safely, branch types. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { at, compileYaml, errorsAt, langid, routedYaml, sentiment } from './control-flow-fixtures.js';

const LANGID = `  - model: langid
    inputs: { TEXT: TEXT }
    outputs: { LANGUAGE: lang, PROB: lang_p }
`;
const LABEL_ONLY = '  - { name: LABEL, data_type: BYTES, dims: [1] }';

test('a branch missing an output: the path that misses it is named, at the output', () => {
  const text = routedYaml(`${LANGID}  - switch:
      cases:
        - when: "lang == 'en'"
          steps:
            - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }
        - when: "lang == 'de'"
          steps:
            - return: { outputs: { LABEL: { value: de } } }
`, LABEL_ONLY);
  const { plan, problems } = compileYaml(text, langid, sentiment);
  assert.equal(plan, undefined);
  assert.deepEqual(errorsAt(problems), [
    `${at(text, '{ name: LABEL')}: pipeline 'routed': output 'LABEL' is not produced on switch#1 with no case taken (it has no default); produce it on every path, or mark the output 'optional: true'`,
  ]);
});

test('a case that neither produces an output nor returns is named as the missing path; optional outputs are exempt', () => {
  const steps = `${LANGID}  - switch:
      cases:
        - when: "lang == 'en'"
          steps:
            - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL, SCORE: SCORE } }
      default:
        - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { SCORE: SCORE } }
`;
  const { problems } = compileYaml(routedYaml(steps), langid, sentiment);
  assert.deepEqual(errorsAt(problems).map((e) => e.replace(/^\d+:\d+: /, '')), [
    "pipeline 'routed': output 'LABEL' is not produced on switch#1 default; produce it on every path, or mark the output 'optional: true'",
  ]);
  const optional = routedYaml(steps, '  - { name: LABEL, data_type: BYTES, dims: [1], optional: true }\n  - { name: SCORE, data_type: FP32, dims: [1] }');
  assert.deepEqual(errorsAt(compileYaml(optional, langid, sentiment).problems), []);
});

test('an output produced only under a when: is reported as possibly skipped', () => {
  const text = routedYaml(`${LANGID}  - model: sentiment
    when: "lang == 'en'"
    inputs: { TEXT: TEXT }
    outputs: { LABEL: LABEL }
`, LABEL_ONLY);
  const errs = errorsAt(compileYaml(text, langid, sentiment).problems);
  assert.equal(errs.length, 1);
  assert.match(errs[0]!, /output 'LABEL' is not produced on the path where its guard is false/);
});

test('a return must give every required output', () => {
  const text = routedYaml(`${LANGID}  - return:
      when: "lang != 'en'"
      outputs: { SCORE: lang_p }
  - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }
`);
  const errs = errorsAt(compileYaml(text, langid, sentiment).problems);
  assert.deepEqual(errs, [`${at(text, 'outputs: { SCORE')}: pipeline 'routed', return 'return#1' (step[1]): the return gives no 'LABEL'; a return emits exactly its outputs, so give every required output or mark it 'optional: true'`]);
});

test('a tensor only some cases produce cannot be read after the switch; inside the producing case it can', () => {
  const text = routedYaml(`${LANGID}  - switch:
      cases:
        - when: "lang == 'en'"
          steps:
            - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: en_label } }
            - { model: sentiment, inputs: { TEXT: en_label }, outputs: { LABEL: LABEL } }
      default:
        - return: { outputs: { LABEL: { value: other } } }
  - { model: sentiment, inputs: { TEXT: en_label }, outputs: { SCORE: SCORE } }
`);
  const errs = errorsAt(compileYaml(text, langid, sentiment).problems);
  assert.deepEqual(errs, [], 'the default returns, so every path that reaches the reader produced en_label');
  const partial = text.replace("        - return: { outputs: { LABEL: { value: other } } }", "        - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }");
  const errs2 = errorsAt(compileYaml(partial, langid, sentiment).problems);
  assert.deepEqual(errs2, [`${at(partial, 'TEXT: en_label }, outputs: { SCORE')}: pipeline 'routed', step 'sentiment#4' (step[2], model 'sentiment'): reads tensor 'en_label', which is not produced on switch#1 default; produce it in every case (or default) or move this step into the cases that produce it`]);
});

test('a tensor produced in two cases must agree in type; a double producer outside a switch stays an error', () => {
  const text = routedYaml(`${LANGID}  - switch:
      cases:
        - when: "lang == 'en'"
          steps:
            - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL, SCORE: x } }
      default:
        - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }
        - { model: langid, inputs: { TEXT: TEXT }, outputs: { LANGUAGE: x } }
`, LABEL_ONLY);
  const errs = errorsAt(compileYaml(text, langid, sentiment).problems);
  assert.equal(errs.length, 1, errs.join('\n'));
  assert.ok(errs.some((e) => e.startsWith(at(text, '{ model: langid, inputs: { TEXT: TEXT }, outputs: { LANGUAGE: x')) && /tensor 'x' is BYTES \[1\] here but FP32 \[1\] from step 'sentiment#1'.*every branch must give it one datatype and shape/.test(e)), errs.join('\n'));
  const twice = routedYaml(`${LANGID}  - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }
  - { model: sentiment, inputs: { TEXT: lang }, outputs: { LABEL: LABEL } }
`, LABEL_ONLY);
  assert.ok(errorsAt(compileYaml(twice, langid, sentiment).problems).some((e) => /tensor 'LABEL' is produced more than once/.test(e)));
});
