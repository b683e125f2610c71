/**
 * A `return` that passes on the tensor of its own output's name (`LANGUAGE: LANGUAGE`), and an
 * output produced by a step in one case and by a return in another: compiled from YAML and run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { of } from 'rxjs';
import { createEnsembleScheduler } from '../../src/dataflow/index.js';
import type { PipelinePlan } from '../../src/pipeline/index.js';
import { createTensor, tensorStrings, type Tensor } from '../../src/tensor/index.js';
import { compileYaml, errorsAt, langid, routedYaml, sentiment } from '../pipeline/control-flow-fixtures.js';
import { fnHost, makeItem, response, type ModelFn } from './dataflow-fixtures.js';

/** langid answers the text itself as LANGUAGE and 0.9 as PROB; sentiment answers 'POSITIVE', 0.8. */
const host = () => fnHost({
  langid: ((req) => of(response(req, [{ ...req.inputs[0]!, name: 'LANGUAGE' }, createTensor('PROB', 'FP32', [1], [0.9])]))) as ModelFn,
  sentiment: ((req) => of(response(req, [createTensor('LABEL', 'BYTES', [1], ['POSITIVE']), createTensor('SCORE', 'FP32', [1], [0.8])]))) as ModelFn,
});

async function run(plan: PipelinePlan, text: string): Promise<Map<string, Tensor>> {
  const sched = createEnsembleScheduler(plan, { host: host(), pipeline: 'routed' });
  const item = makeItem({ inputs: [createTensor('TEXT', 'BYTES', [1], [text])] });
  sched.enqueue(item);
  await item.settled;
  assert.equal(item.error, undefined, item.error?.message);
  return new Map(item.responses[0]!.outputs.map((t) => [t.name, t]));
}

const OUTPUTS = '  - { name: LANGUAGE, data_type: BYTES, dims: [1] }\n  - { name: LABEL, data_type: BYTES, dims: [1] }';

test('a return giving LANGUAGE: LANGUAGE reads the tensor and emits the output of that name', async () => {
  const text = routedYaml(`  - { model: langid, inputs: { TEXT: TEXT }, outputs: { LANGUAGE: LANGUAGE, PROB: p } }
  - switch:
      cases:
        - when: "LANGUAGE == 'en'"
          steps:
            - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }
      default:
        - return: { outputs: { LANGUAGE: LANGUAGE, LABEL: { value: "unsupported language" } } }
`, OUTPUTS);
  const { plan, problems } = compileYaml(text, langid, sentiment);
  assert.deepEqual(errorsAt(problems), []);
  const de = await run(plan!, 'de');
  assert.deepEqual([tensorStrings(de.get('LANGUAGE')!), tensorStrings(de.get('LABEL')!)], [['de'], ['unsupported language']]);
  const en = await run(plan!, 'en');
  assert.deepEqual([tensorStrings(en.get('LANGUAGE')!), tensorStrings(en.get('LABEL')!)], [['en'], ['POSITIVE']]);
});

test('a step in one case and a return in another both produce output LABEL', async () => {
  const text = routedYaml(`  - { model: langid, inputs: { TEXT: TEXT }, outputs: { LANGUAGE: LANGUAGE, PROB: p } }
  - switch:
      cases:
        - when: "LANGUAGE == 'en'"
          steps:
            - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }
        - when: "LANGUAGE == 'de'"
          steps:
            - return: { outputs: { LANGUAGE: LANGUAGE, LABEL: { value: "deutsch" } } }
      default:
        - { model: sentiment, inputs: { TEXT: LANGUAGE }, outputs: { LABEL: LABEL } }
`, OUTPUTS);
  const { plan, problems } = compileYaml(text, langid, sentiment);
  assert.deepEqual(errorsAt(problems), []);
  assert.deepEqual(tensorStrings((await run(plan!, 'de')).get('LABEL')!), ['deutsch']);
  assert.deepEqual(tensorStrings((await run(plan!, 'en')).get('LABEL')!), ['POSITIVE']);
  assert.deepEqual(tensorStrings((await run(plan!, 'fr')).get('LABEL')!), ['POSITIVE']);
});
