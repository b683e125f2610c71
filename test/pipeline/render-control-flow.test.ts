/** `tributary graph` draws control flow: switch diamonds with case labels, map/loop subgraphs, return terminals, `when` on edges. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderDot, renderMermaid } from '../../src/pipeline/index.js';
import { compileYaml, errorsAt, langid, recog, refine, routedYaml, sentiment } from './control-flow-fixtures.js';

const routed = compileYaml(routedYaml(`  - model: langid
    when: "params.detect != false"
    inputs: { TEXT: TEXT }
    outputs: { LANGUAGE: lang, PROB: lang_p }
  - switch:
      cases:
        - when: "lang == 'en'"
          steps: [{ model: sentiment, inputs: { TEXT: TEXT }, outputs: { LABEL: LABEL, SCORE: SCORE } }]
      default:
        - return: { outputs: { LABEL: { value: other }, SCORE: lang_p } }
`, '  - { name: LABEL, data_type: BYTES, dims: [1], optional: true }\n  - { name: SCORE, data_type: FP32, dims: [1], optional: true }'), langid, sentiment);

const loops = compileYaml(`name: ocr
input:
  - { name: CROPS, data_type: FP32, dims: [-1, 8] }
  - { name: STATE, data_type: FP32, dims: [4] }
output:
  - { name: TEXTS, data_type: BYTES, dims: [-1] }
  - { name: FINAL, data_type: FP32, dims: [4] }
steps:
  - map:
      over: CROPS
      as: crop
      steps: [{ model: recog, inputs: { CROP: crop }, outputs: { TEXT: text } }]
      outputs: { text: TEXTS }
  - loop:
      max: 8
      carry: { s: STATE }
      while: "max(s) < 0.9"
      steps: [{ model: refine, inputs: { S: s }, outputs: { S: s2 } }]
      next: { s: s2 }
      outputs: { s: FINAL }
`, recog, refine);

test('the fixtures compile', () => {
  assert.deepEqual(errorsAt(routed.problems), []);
  assert.deepEqual(errorsAt(loops.problems), []);
});

test('mermaid: a switch diamond with case edges, a when on edges, a return terminal', () => {
  const m = renderMermaid(routed.plan!);
  for (const line of [
    'sw0{"switch#1"}', 's0 -.->|"lang"| sw0', `sw0 -->|"lang == 'en'"| s1`, 'sw0 -->|"default"| s2',
    'in_TEXT -->|"TEXT when params.detect != false"| s0', 's2((("return#1")))', 's2 -.->|"literal"| out_LABEL', 's2 -.->|"lang_p"| out_SCORE',
  ]) assert.ok(m.includes(line), `${line}\n${m}`);
});

test('mermaid: map and loop as subgraphs labelled with over / max, their bodies inside', () => {
  const m = renderMermaid(loops.plan!);
  for (const line of [
    'subgraph s0 ["map#1 over CROPS as crop, concurrency 16"]', '    s0_in_crop(["crop"])', '    s0_in_crop -->|"crop"| s0_s0',
    'subgraph s1 ["loop#1 max 8, while max(s) < 0.9"]', 'in_CROPS -->|"CROPS"| s0', 's1 -->|"FINAL"| out_FINAL',
  ]) assert.ok(m.includes(line), `${line}\n${m}`);
});

test('dot: diamonds, clusters, a double-circle return and when labels', () => {
  const d = renderDot(routed.plan!);
  for (const line of [
    '"switch:0" [label="switch#1", shape=diamond];', `"switch:0" -> "step:1" [label="lang == 'en'"];`,
    '"step:2" [label="return#1", shape=doublecircle];', '"in:TEXT" -> "step:0" [label="TEXT when params.detect != false"];',
    '"step:0" -> "switch:0" [label="lang", style=dashed];',
  ]) assert.ok(d.includes(line), `${line}\n${d}`);
  const l = renderDot(loops.plan!);
  for (const line of [
    'subgraph "cluster_step:0" {', '"step:0" [label="map#1 over CROPS as crop (concurrency 16)", shape=component];',
    '"step:1" [label="loop#1 max 8 while max(s) < 0.9", shape=component];', '"step:0/in:crop" -> "step:0/step:0" [label="crop"];',
  ]) assert.ok(l.includes(line), `${line}\n${l}`);
});
