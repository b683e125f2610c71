/** Conditions compile against the pipeline's tensor types; a problem points at its character in the YAML string. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { at, compileYaml, compileYamlWithLabels, errorsAt, langid, routedYaml, sentiment } from './control-flow-fixtures.js';
import { model } from './pipeline-fixtures.js';

const LABEL_OPT = '  - { name: LABEL, data_type: BYTES, dims: [1], optional: true }';
const LANGID = '  - { model: langid, inputs: { TEXT: TEXT }, outputs: { LANGUAGE: lang, PROB: lang_p } }\n';

test('a condition of the wrong type is reported at the offending token inside the quoted string', () => {
  const text = routedYaml(`${LANGID}  - model: sentiment
    when: "lang_p > 'high'"
    inputs: { TEXT: TEXT }
    outputs: { LABEL: LABEL }
`, LABEL_OPT);
  const errs = errorsAt(compileYaml(text, langid, sentiment).problems);
  assert.equal(errs.length, 1, errs.join('\n'));
  assert.ok(errs[0]!.startsWith(`${at(text, "'high'")}: pipeline 'routed', step 'sentiment' (step[1]): condition 'lang_p > 'high'': `), errs[0]);
});

test('a switch case and a loop while are compiled too; an unknown tensor is named at its column (plain scalar)', () => {
  const text = routedYaml(`${LANGID}  - switch:
      cases:
        - when: lang == 'en' and langp > 0.5
          steps: [{ model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }]
`, LABEL_OPT);
  const errs = errorsAt(compileYaml(text, langid, sentiment).problems);
  assert.equal(errs.length, 1, errs.join('\n'));
  assert.ok(errs[0]!.startsWith(`${at(text, 'langp')}: pipeline 'routed', case 1 of 'switch#1': condition `), errs[0]);
});

test('top1() gets the labels of the model output that produces its tensor; without them it is refused', () => {
  const classify = model('classify', { TEXT: ['TYPE_STRING', [1]] }, { PROBS: ['TYPE_FP32', [3]] });
  const text = routedYaml(`  - { model: classify, inputs: { TEXT: TEXT }, outputs: { PROBS: probs } }
  - model: sentiment
    when: "top1(probs) == 'en'"
    inputs: { TEXT: TEXT }
    outputs: { LABEL: LABEL }
`, LABEL_OPT);
  const labels = (m: string) => (m === 'classify' ? new Map([['PROBS', ['en', 'de', 'fr']]]) : undefined);
  assert.deepEqual(errorsAt(compileYamlWithLabels(text, labels, classify, sentiment).problems), []);
  const without = errorsAt(compileYaml(text, classify, sentiment).problems);
  assert.equal(without.length, 1);
  assert.match(without[0]!, /needs labels, but tensor 'probs' has none/);
});

test('offline (no loaded labels), a label_filename on the producing output is enough for top1()', () => {
  const classify = model('classify', { TEXT: ['TYPE_STRING', [1]] }, { PROBS: ['TYPE_FP32', [3]] });
  const labelled = { ...classify, output: [{ ...classify.output[0]!, label_filename: 'languages.txt' }] };
  const text = routedYaml(`  - { model: classify, inputs: { TEXT: TEXT }, outputs: { PROBS: probs } }
  - model: sentiment
    when: "top1(probs) == 'en'"
    inputs: { TEXT: TEXT }
    outputs: { LABEL: LABEL }
`, LABEL_OPT);
  assert.deepEqual(errorsAt(compileYaml(text, labelled, sentiment).problems), []);
});
