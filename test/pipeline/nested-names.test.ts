/**
 * Node names are unique across a pipeline and its bodies (a map inside a map is `map#2`), and
 * messages, statistics and `tributary graph` name a nested node the same way.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEnsembleScheduler } from '../../src/dataflow/index.js';
import { renderMermaid } from '../../src/pipeline/index.js';
import { compileYaml, errorsAt } from './control-flow-fixtures.js';
import { model } from './pipeline-fixtures.js';

const reader = model('reader', { PAGE: ['TYPE_FP32', [1, -1, 8]] }, { TEXT: ['TYPE_STRING', [1]] });

const yaml = (innerInput = 'page') => `name: books
input:
  - { name: BOOKS, data_type: FP32, dims: [-1, -1, 8] }
output:
  - { name: TEXTS, data_type: BYTES, dims: [-1] }
steps:
  - map:
      over: BOOKS
      as: book
      steps:
        - map:
            over: book
            as: page
            steps:
              - switch:
                  cases:
                    - when: "size(page) > 0"
                      steps:
                        - { model: reader, inputs: { PAGE: ${innerInput} }, outputs: { TEXT: text } }
                  default:
                    - { model: reader, inputs: { PAGE: page }, outputs: { TEXT: text } }
            outputs: { text: texts }
      outputs: { texts: TEXTS }
`;

test('a map nested in a map is map#2, its switch numbered across the pipeline; stats and graph agree', () => {
  const { plan, problems } = compileYaml(yaml(), reader);
  assert.deepEqual(errorsAt(problems), []);
  const outer = plan!.steps[0]!;
  const inner = outer.map!.plan.steps[0]!;
  assert.deepEqual([outer.name, inner.name, inner.map!.plan.name], ['map#1', 'map#2', 'books/map#1/map#2']);
  assert.deepEqual(inner.map!.plan.switches.map((s) => s.name), ['switch#1']);
  const sched = createEnsembleScheduler(plan!, { host: { infer: () => { throw new Error('not called'); } }, pipeline: 'books' });
  assert.deepEqual(sched.stepStats().map((s) => s.step), ['map#1', 'map#1/map#2', 'map#1/map#2/reader#0', 'map#1/map#2/reader#1']);
  assert.deepEqual(sched.branchStats().map((b) => `${b.switch} ${b.case}`), ['map#1/map#2/switch#1 0', 'map#1/map#2/switch#1 default']);
  const graph = renderMermaid(plan!);
  assert.match(graph, /"map#1 over BOOKS as book/);
  assert.match(graph, /"map#2 over book as page/);
});

test('a problem inside the nested body names it by its full path', () => {
  const errs = errorsAt(compileYaml(yaml('pgae'), reader).problems);
  assert.ok(errs.some((e) => e.includes("pipeline 'books/map#1/map#2', step 'reader#0'") && e.includes("tensor 'pgae'")), errs.join('\n'));
});
