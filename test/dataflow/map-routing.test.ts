/**
 * Routing per item: a `return` inside a map is refused, so per-item routing is a map whose body
 * has a switch with every case producing the item's outputs. Compiled from YAML and run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { of } from 'rxjs';
import { createEnsembleScheduler } from '../../src/dataflow/index.js';
import { createTensor, tensorStrings } from '../../src/tensor/index.js';
import { compileYaml, errorsAt, langid, sentiment } from '../pipeline/control-flow-fixtures.js';
import { model } from '../pipeline/pipeline-fixtures.js';
import { fnHost, makeItem, response, type ModelFn } from './dataflow-fixtures.js';

const fallback = model('fallback', { TEXT: ['TYPE_STRING', [1]] }, { LABEL: ['TYPE_STRING', [1]] });
const text = (req: Parameters<ModelFn>[0]) => tensorStrings(req.inputs[0]!)[0]!;

const YAML = `name: per_item
input:
  - { name: TEXTS, data_type: BYTES, dims: [-1] }
output:
  - { name: LABELS, data_type: BYTES, dims: [-1] }
steps:
  - map:
      over: TEXTS
      as: text
      steps:
        - { model: langid, inputs: { TEXT: text }, outputs: { LANGUAGE: lang, PROB: p } }
        - switch:
            cases:
              - when: "lang == 'en'"
                steps:
                  - { model: sentiment, inputs: { TEXT: text }, outputs: { LABEL: label } }
            default:
              - { model: fallback, inputs: { TEXT: text }, outputs: { LABEL: label } }
      outputs: { label: LABELS }
`;

test('a map whose body switches per item: each item takes its own case, results in item order', async () => {
  const { plan, problems } = compileYaml(YAML, langid, sentiment, fallback);
  assert.deepEqual(errorsAt(problems), []);
  // langid answers the text's first two letters as its language.
  const host = fnHost({
    langid: (req) => of(response(req, [createTensor('LANGUAGE', 'BYTES', [1], [text(req).slice(0, 2)]), createTensor('PROB', 'FP32', [1], [1])])),
    sentiment: (req) => of(response(req, [createTensor('LABEL', 'BYTES', [1], [`positive: ${text(req)}`])])),
    fallback: (req) => of(response(req, [createTensor('LABEL', 'BYTES', [1], [`unsupported: ${text(req)}`])])),
  });
  const sched = createEnsembleScheduler(plan!, { host, pipeline: 'per_item' });
  const item = makeItem({ inputs: [createTensor('TEXTS', 'BYTES', [3], ['en good', 'de gut', 'en fine'])] });
  sched.enqueue(item);
  await item.settled;
  assert.equal(item.error, undefined, item.error?.message);
  const labels = item.responses[0]!.outputs.find((t) => t.name === 'LABELS')!;
  assert.deepEqual(labels.shape, [3]);
  assert.deepEqual(tensorStrings(labels), ['positive: en good', 'unsupported: de gut', 'positive: en fine']);
  assert.deepEqual(sched.branchStats().map((b) => [b.switch, b.case, b.taken, b.skipped]), [
    ['map#1/switch#1', '0', 2, 1], ['map#1/switch#1', 'default', 1, 2],
  ]);
  assert.deepEqual(sched.stepStats().map((s) => [s.step, s.count, s.skipped ?? 0]), [
    ['map#1', 1, 0], ['map#1/langid', 3, 0], ['map#1/sentiment', 2, 1], ['map#1/fallback', 1, 2],
  ]);
});

test('a return inside a map is refused, saying to produce the body\'s outputs instead', () => {
  const bad = YAML.replace('- { model: fallback, inputs: { TEXT: text }, outputs: { LABEL: label } }', '- return: { outputs: { LABELS: { value: "unsupported" } } }');
  const errs = errorsAt(compileYaml(bad, langid, sentiment, fallback).problems);
  assert.ok(errs.some((e) => /'return' ends the whole pipeline and is not allowed inside a map or loop body; produce the body's outputs instead/.test(e)), errs.join('\n'));
});
