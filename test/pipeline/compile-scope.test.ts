/** Control flow compiles into one plan: guards, switches, producers, returns, map and loop sub-plans. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileYaml, errorsAt, langid, recog, refine, routedYaml, sentiment } from './control-flow-fixtures.js';
import { model } from './pipeline-fixtures.js';

const ROUTED = routedYaml(`  - model: langid
    inputs: { TEXT: TEXT }
    outputs: { LANGUAGE: lang, PROB: lang_p }
  - switch:
      cases:
        - when: "lang == 'en'"
          steps:
            - model: sentiment
              inputs: { TEXT: TEXT }
              outputs: { LABEL: LABEL, SCORE: SCORE }
      default:
        - return:
            outputs:
              LABEL: { value: "unsupported language" }
              SCORE: lang_p
`);

test('a switch with a default return compiles: case guards, one switch, two producers per output, optional outputs', () => {
  const { plan, problems } = compileYaml(ROUTED, langid, sentiment);
  assert.deepEqual(errorsAt(problems), []);
  assert.ok(plan);
  assert.deepEqual(plan.steps.map((s) => [s.name, s.kind]), [['langid', 'model'], ['sentiment', 'model'], ['return#1', 'return']]);
  assert.deepEqual(plan.steps[0]!.guards, []);
  assert.deepEqual(plan.steps[1]!.guards, [{ kind: 'case', switchId: 0, caseIndex: 0 }]);
  assert.deepEqual(plan.steps[2]!.guards, [{ kind: 'case', switchId: 0, caseIndex: -1 }]);
  assert.equal(plan.switches.length, 1);
  const sw = plan.switches[0]!;
  assert.deepEqual([sw.id, sw.name, sw.hasDefault, sw.guards], [0, 'switch#1', true, []]);
  assert.deepEqual(sw.cases.map((c) => [c.source, c.reads]), [["lang == 'en'", ['lang']]]);
  assert.deepEqual(plan.producers.get('LABEL'), [1, 2]);
  assert.deepEqual(plan.producers.get('lang'), [0]);
  assert.deepEqual([...plan.optionalOutputs], ['SCORE']);
  const ret = plan.steps[2]!;
  assert.deepEqual(ret.inputs, [{ name: 'lang_p', tensor: 'lang_p' }]);
  assert.deepEqual(ret.outputs, [], "a return's outputs are in ret, not bindings");
  assert.equal(ret.ret![1]!.tensor, 'lang_p');
  const lit = ret.ret![0]!.literal!;
  assert.deepEqual([lit.datatype, lit.shape, new TextDecoder().decode((lit.data as Uint8Array[])[0])], ['BYTES', [1], 'unsupported language']);
});

test('a when: guard compiles to a when guard holding the compiled condition, read before the step', () => {
  const { plan, problems } = compileYaml(routedYaml(`  - model: langid
    inputs: { TEXT: TEXT }
    outputs: { LANGUAGE: lang, PROB: lang_p }
  - model: sentiment
    when: "lang == 'en' and max(lang_p) > 0.5"
    inputs: { TEXT: TEXT }
    outputs: { LABEL: LABEL }
`, '  - { name: LABEL, data_type: BYTES, dims: [1], optional: true }'), langid, sentiment);
  assert.deepEqual(errorsAt(problems), []);
  const g = plan!.steps[1]!.guards;
  const [only] = g;
  assert.equal(g.length, 1);
  assert.ok(only?.kind === 'when');
  assert.deepEqual(only.condition.reads, ['lang', 'lang_p']);
  assert.equal(plan!.steps[0]!.name, 'langid', 'the guard reads order the graph: langid first');
});

test('a switch nested in a case: inner nodes carry both case guards, the inner switch its enclosing guard', () => {
  const { plan, problems } = compileYaml(routedYaml(`  - model: langid
    inputs: { TEXT: TEXT }
    outputs: { LANGUAGE: lang, PROB: lang_p }
  - switch:
      name: route
      cases:
        - when: "lang in ['en', 'de']"
          steps:
            - switch:
                cases:
                  - when: "max(lang_p) > 0.5"
                    steps:
                      - { model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL } }
                default:
                  - return: { outputs: { LABEL: { value: unsure } } }
      default:
        - return: { outputs: { LABEL: { value: other } } }
`, '  - { name: LABEL, data_type: BYTES, dims: [1] }'), langid, sentiment);
  assert.deepEqual(errorsAt(problems), []);
  assert.deepEqual(plan!.switches.map((s) => [s.name, s.guards]), [['route', []], ['switch#2', [{ kind: 'case', switchId: 0, caseIndex: 0 }]]]);
  const s = plan!.steps.find((x) => x.name === 'sentiment')!;
  assert.deepEqual(s.guards, [{ kind: 'case', switchId: 0, caseIndex: 0 }, { kind: 'case', switchId: 1, caseIndex: 0 }]);
});

const OCR = `name: ocr
input:
  - { name: CROPS, data_type: FP32, dims: [-1, 8] }
  - { name: STATE, data_type: FP32, dims: [4] }
  - { name: BIAS, data_type: FP32, dims: [4] }
output:
  - { name: TEXTS, data_type: BYTES, dims: [-1] }
  - { name: FINAL, data_type: FP32, dims: [4] }
steps:
  - map:
      over: CROPS
      as: crop
      concurrency: 8
      steps:
        - model: recog
          inputs: { CROP: crop }
          outputs: { TEXT: text }
      outputs: { text: TEXTS }
  - loop:
      max: 8
      carry: { s: STATE }
      while: "max(s) < 0.9 and max(BIAS) > 0"
      steps:
        - model: refine
          inputs: { S: s }
          outputs: { S: s2 }
      next: { s: s2 }
      outputs: { s: FINAL }
`;

test('map and loop compile into nodes holding sub-plans; outer reads become node inputs', () => {
  const { plan, problems } = compileYaml(OCR, recog, refine);
  assert.deepEqual(errorsAt(problems), []);
  const [m, l] = plan!.steps;
  assert.equal(m!.kind, 'map');
  assert.deepEqual({ ...m!.map!, plan: undefined }, { over: 'CROPS', as: 'crop', concurrency: 8, maxItems: 1024, plan: undefined });
  assert.deepEqual(m!.inputs, [{ name: 'CROPS', tensor: 'CROPS' }]);
  assert.deepEqual(m!.outputs, [{ name: 'text', tensor: 'TEXTS' }]);
  assert.deepEqual(m!.map!.plan.inputs.map((t) => t.name), ['crop']);
  assert.deepEqual(m!.map!.plan.outputs.map((t) => t.name), ['text']);
  assert.deepEqual(m!.map!.plan.steps.map((s) => s.model), ['recog']);
  assert.equal(l!.kind, 'loop');
  const loop = l!.loop!;
  assert.deepEqual([loop.max, loop.carry, loop.next, loop.while?.source], [8, [{ name: 's', from: 'STATE' }], [{ name: 's', from: 's2' }], 'max(s) < 0.9 and max(BIAS) > 0']);
  assert.deepEqual(l!.inputs, [{ name: 's', tensor: 'STATE' }, { name: 'BIAS', tensor: 'BIAS' }], "the while's outer read is an input");
  assert.deepEqual(loop.plan.inputs.map((t) => t.name), ['s']);
  assert.deepEqual(loop.plan.outputs.map((t) => t.name), ['s2']);
  assert.deepEqual(l!.outputs, [{ name: 's', tensor: 'FINAL' }]);
});

test('a map body reading an outer tensor gets it as a sub-plan input and the map node as an input', () => {
  const { plan, problems } = compileYaml(`name: m
input:
  - { name: CROPS, data_type: FP32, dims: [-1, 4] }
  - { name: S0, data_type: FP32, dims: [4] }
output:
  - { name: OUT, data_type: FP32, dims: [-1, 4] }
steps:
  - map:
      over: CROPS
      as: c
      steps:
        - { model: two, inputs: { L: c, R: S0 }, outputs: { S: y } }
      outputs: { y: OUT }
`, model2());
  assert.deepEqual(errorsAt(problems), []);
  const m = plan!.steps[0]!;
  assert.deepEqual(m.inputs.map((b) => b.tensor), ['CROPS', 'S0']);
  assert.deepEqual(m.map!.plan.inputs.map((t) => t.name), ['c', 'S0']);
});

function model2() {
  return model('two', { L: ['TYPE_FP32', [1, 4]], R: ['TYPE_FP32', [4]] }, { S: ['TYPE_FP32', [1, 4]] });
}
