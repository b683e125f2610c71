import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseConfigText, configFromJsonObject, validateConfig, positionOf } from '../../src/config/index.js';

const read = (name: string) => readFileSync(new URL(`../fixtures/config/${name}`, import.meta.url), 'utf8');

for (const name of ['simple', 'ensemble', 'dynamic-batching', 'sequence', 'features']) {
  test(`${name}.yaml gives the same config as ${name}.pbtxt`, () => {
    const a = parseConfigText(read(`${name}.pbtxt`), `${name}.pbtxt`, 'pbtxt');
    const b = parseConfigText(read(`${name}.yaml`), `${name}.yaml`, 'yaml');
    assert.deepEqual(validateConfig(a), []);
    assert.deepEqual(validateConfig(b), []);
    assert.deepEqual(b.config, a.config);
  });
}

test('pipeline steps sugar records the positions of what was written', () => {
  const p = parseConfigText(read('ensemble.yaml'), 'ensemble.yaml', 'yaml');
  assert.equal(p.config.platform, 'ensemble');
  assert.deepEqual(positionOf(p, 'ensemble_scheduling.step[1]'), { file: 'ensemble.yaml', line: 14, col: 5 });
  assert.deepEqual(positionOf(p, 'ensemble_scheduling.step[1].model_name'), { file: 'ensemble.yaml', line: 14, col: 5 });
  assert.deepEqual(positionOf(p, 'ensemble_scheduling.step[1].input_map.attention_mask'), { file: 'ensemble.yaml', line: 18, col: 7 });
  assert.deepEqual(positionOf(p, 'ensemble_scheduling.step[0].output_map.attention_mask'), { file: 'ensemble.yaml', line: 13, col: 32 });
});

test('ensemble_scheduling without a step list carries max_inflight_requests beside steps', () => {
  const p = parseConfigText('name: p\nensemble_scheduling: { max_inflight_requests: 2 }\nsteps:\n  - { model: a, inputs: { x: x }, outputs: { y: y } }\n', 'p.yaml', 'yaml');
  assert.deepEqual(p.problems, []);
  assert.equal(p.config.ensemble_scheduling?.max_inflight_requests, 2);
  assert.equal(p.config.ensemble_scheduling?.step[0]?.model_name, 'a');
  assert.deepEqual(positionOf(p, 'ensemble_scheduling.step[0].model_name'), { file: 'p.yaml', line: 4, col: 7 });
});

test('steps next to ensemble_scheduling, or a model given twice in a step, are errors', () => {
  const p = parseConfigText('name: p\nensemble_scheduling: { step: [] }\nsteps:\n  - { model: a, name: b }\n', 'p.yaml', 'yaml');
  assert.deepEqual(p.problems.map((x) => `${x.line}:${x.col} ${x.message}`), [
    "3:1 model 'p': steps: use either 'steps' or 'ensemble_scheduling' with a 'step' list (set at 2:1), not both",
  ]);
  const q = parseConfigText('name: p\nsteps:\n  - { model: a, name: b, inputs: { x: x }, outputs: { y: y } }\n', 'q.yaml', 'yaml');
  assert.deepEqual(q.problems.map((x) => `${x.line}:${x.col} ${x.message}`), [
    "3:17 model 'p': steps: 'name' and 'model' both set model_name in the same step",
  ]);
});

test('JSON text and an already-parsed object convert like the other formats', () => {
  const obj = {
    name: 'simple', platform: 'onnxruntime_onnx', max_batch_size: 8,
    input: [{ name: 'INPUT0', data_type: 'TYPE_INT32', dims: ['16'] }, { name: 'INPUT1', data_type: 'TYPE_INT32', dims: [16] }],
    output: [{ name: 'OUTPUT0', data_type: 'TYPE_INT32', dims: [16] }, { name: 'OUTPUT1', data_type: 'TYPE_INT32', dims: [16] }],
  };
  const expected = parseConfigText(read('simple.pbtxt'), 'simple.pbtxt', 'pbtxt').config;
  const fromText = parseConfigText(JSON.stringify(obj, null, 2), 'override.json', 'json');
  assert.deepEqual(fromText.problems, []);
  assert.deepEqual(fromText.config, expected, 'int64 values may be strings, as protobuf JSON prints them');
  assert.deepEqual(positionOf(fromText, 'input[1].name'), { file: 'override.json', line: 14, col: 7 });
  const fromObject = configFromJsonObject(obj, 'load request');
  assert.deepEqual(fromObject.problems, []);
  assert.deepEqual(fromObject.config, expected);
});

test('JSON is typed: a number is not a string, and YAML conveniences do not apply', () => {
  const p = parseConfigText('{"name": 5, "input": [{"name": "a", "data_type": "FP32", "dims": [1]}]}', 'c.json', 'json');
  assert.deepEqual(p.problems.map((x) => `${x.line}:${x.col} ${x.message}`), [
    "1:10 name: expected a string, got '5'",
    "1:50 input[0].data_type: invalid DataType value string \"FP32\" (did you mean TYPE_FP32?); allowed: TYPE_INVALID, TYPE_BOOL, TYPE_UINT8, TYPE_UINT16, TYPE_UINT32, TYPE_UINT64, TYPE_INT8, TYPE_INT16, TYPE_INT32, TYPE_INT64, TYPE_FP16, TYPE_FP32, TYPE_FP64, TYPE_STRING, TYPE_BF16",
  ]);
});

test('YAML maps, anchors and aliases, and YAML syntax errors with positions', () => {
  const p = parseConfigText([
    'name: m',
    'max_batch_size: 2',
    'input:',
    '  - &t { name: a, data_type: FP16, dims: [4] }',
    'output:',
    '  - *t',
    'metric_tags: { team: search, tier: 1 }',
    'cc_model_filenames: { "7.5": model_t4.onnx }',
  ].join('\n'), 'm.yaml', 'yaml');
  assert.deepEqual(p.problems, []);
  assert.deepEqual(p.config.output.map((o) => [o.name, o.data_type, o.dims]), [['a', 'TYPE_FP16', [4]]]);
  assert.deepEqual(p.config.metric_tags, { team: 'search', tier: '1' });
  assert.deepEqual(p.config.cc_model_filenames, { '7.5': 'model_t4.onnx' });
  const bad = parseConfigText('name: m\ninput:\n  - name: a\n    dims: [1\n', 'bad.yaml', 'yaml');
  assert.ok(bad.problems.length > 0);
  assert.equal(bad.problems[0]!.severity, 'error');
  assert.match(bad.problems[0]!.message, /^model 'm': yaml syntax error: /);
  assert.equal(bad.problems[0]!.line, 5, 'the unclosed [ is found at the end of the file');
  const dup = parseConfigText('name: m\nname: n\n', 'dup.yaml', 'yaml');
  assert.deepEqual(dup.problems.map((x) => [x.line, x.col, x.severity]), [[2, 1, 'error']]);
  assert.match(dup.problems[0]!.message, /unique/);
});
