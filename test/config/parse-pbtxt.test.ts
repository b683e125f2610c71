import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseConfigText, validateConfig, positionOf, formatProblems } from '../../src/config/index.js';

const fixture = (name: string) => new URL(`../fixtures/config/${name}`, import.meta.url);
const load = (name: string) => parseConfigText(readFileSync(fixture(name), 'utf8'), name, 'pbtxt');
const pbtxt = (text: string, name = 'm') => parseConfigText(text, 'config.pbtxt', 'pbtxt', { name });

test('the simple add/sub model parses with positions and no problems', () => {
  const p = load('simple.pbtxt');
  assert.deepEqual(validateConfig(p), []);
  assert.equal(p.config.name, 'simple');
  assert.equal(p.config.max_batch_size, 8);
  assert.deepEqual(p.config.input.map((i) => [i.name, i.data_type, i.dims]), [['INPUT0', 'TYPE_INT32', [16]], ['INPUT1', 'TYPE_INT32', [16]]]);
  assert.deepEqual(p.config.output.map((o) => o.name), ['OUTPUT0', 'OUTPUT1']);
  assert.deepEqual(positionOf(p, 'input[1].dims'), { file: 'simple.pbtxt', line: 14, col: 5 });
  assert.deepEqual(positionOf(p, 'input[1].dims[0]'), { file: 'simple.pbtxt', line: 14, col: 13 });
  assert.deepEqual(positionOf(p, 'output[0]'), { file: 'simple.pbtxt', line: 18, col: 3 });
});

test('ensemble steps: both repeated forms, map entries as repeated keys and as a list', () => {
  const p = load('ensemble.pbtxt');
  assert.deepEqual(validateConfig(p), []);
  const steps = p.config.ensemble_scheduling!.step;
  assert.deepEqual(steps.map((s) => [s.model_name, s.model_version]), [['tokenizer', -1], ['encoder', 2], ['postprocess', -1]]);
  assert.deepEqual(steps[0]!.output_map, { input_ids: 'ids', attention_mask: 'mask' });
  assert.deepEqual(steps[1]!.input_map, { input_ids: 'ids', attention_mask: 'mask' });
  assert.deepEqual(steps[2]!.input_map, { LOGITS: 'logits' });
  assert.deepEqual(p.config.instance_group, [], 'an ensemble gets no default instance group');
  assert.deepEqual(positionOf(p, 'ensemble_scheduling.step[1].input_map.attention_mask'), { file: 'ensemble.pbtxt', line: 24, col: 61 });
  assert.deepEqual(positionOf(p, 'ensemble_scheduling.step[2]'), { file: 'ensemble.pbtxt', line: 28, col: 3 });
});

test('dynamic batching with a priority_queue_policy map keyed by level', () => {
  const p = load('dynamic-batching.pbtxt');
  assert.deepEqual(validateConfig(p), []);
  const d = p.config.dynamic_batching!;
  assert.deepEqual(d.preferred_batch_size, [4, 8]);
  assert.equal(d.max_queue_delay_microseconds, 100);
  assert.deepEqual(d.default_queue_policy, { timeout_action: 'DELAY', default_timeout_microseconds: 5000, allow_timeout_override: true, max_queue_size: 64 });
  assert.deepEqual(d.priority_queue_policy, {
    1: { timeout_action: 'REJECT', default_timeout_microseconds: 1000, allow_timeout_override: false, max_queue_size: 8 },
  });
});

test('sequence batching with control inputs, oldest strategy and implicit state', () => {
  const p = load('sequence.pbtxt');
  assert.deepEqual(validateConfig(p), []);
  const s = p.config.sequence_batching!;
  assert.equal(s.max_sequence_idle_microseconds, 5_000_000);
  assert.deepEqual(s.oldest, { max_candidate_sequences: 8, preferred_batch_size: [2, 4], max_queue_delay_microseconds: 100, preserve_ordering: false });
  assert.deepEqual(s.control_input.map((c) => [c.name, c.control[0]!.kind]), [
    ['START', 'CONTROL_SEQUENCE_START'], ['READY', 'CONTROL_SEQUENCE_READY'], ['END', 'CONTROL_SEQUENCE_END'], ['CORRID', 'CONTROL_SEQUENCE_CORRID']]);
  assert.deepEqual(s.control_input[0]!.control[0]!.fp32_false_true, [0, 1]);
  assert.deepEqual(s.control_input[2]!.control[0]!.bool_false_true, [false, true]);
  assert.equal(s.control_input[3]!.control[0]!.data_type, 'TYPE_UINT64');
  assert.equal(s.state[0]!.input_name, 'INPUT_STATE');
  assert.deepEqual(s.state[0]!.initial_state, [{ data_type: 'TYPE_FP32', dims: [1], zero_data: true, name: 'zeros' }]);
});

test('instance groups, parameters, warmup, accelerators, specific versions', () => {
  const p = load('features.pbtxt');
  assert.deepEqual(validateConfig(p), []);
  const c = p.config;
  assert.deepEqual(c.version_policy, { specific: { versions: [1, 3] } });
  assert.deepEqual(c.input[0]!.reshape, { shape: [1, 3, 224, 224] });
  assert.equal(c.input[0]!.format, 'FORMAT_NCHW');
  assert.equal(c.output[0]!.label_filename, 'labels.txt');
  assert.deepEqual(c.instance_group.map((g) => [g.name, g.kind, g.count, g.passive]),
    [['classifier_0', 'KIND_CPU', 2, false], ['spare', 'KIND_CPU', 1, true]]);
  assert.deepEqual(c.parameters, { intra_op_thread_count: { string_value: '2' }, mode: { string_value: 'fast' } });
  assert.deepEqual(c.optimization!.graph, { level: 1 });
  assert.deepEqual(c.optimization!.execution_accelerators, {
    cpu_execution_accelerator: [{ name: 'openvino', parameters: {} }],
    gpu_execution_accelerator: [{ name: 'tensorrt', parameters: { precision_mode: 'FP16', max_workspace_size_bytes: '1073741824' } }],
  });
  assert.deepEqual(c.model_warmup, [{ name: 'zeros', batch_size: 1, count: 0,
    inputs: { image: { data_type: 'TYPE_FP32', dims: [3, 224, 224], zero_data: true } } }]);
  assert.equal(c.model_transaction_policy.decoupled, false);
});

test('string escapes, both quotes and adjacent-string concatenation', () => {
  const p = pbtxt(String.raw`
    name: "a\"b\'c\\d\te\n"
    platform: 'single "quoted"'
    backend: "con" 'cat' "enated"
    default_model_filename: "\101\x42\u00e9\303\251\?"
    runtime: ""`);
  assert.deepEqual(p.problems, []);
  assert.equal(p.config.name, 'a"b\'c\\d\te\n');
  assert.equal(p.config.platform, 'single "quoted"');
  assert.equal(p.config.backend, 'concatenated');
  assert.equal(p.config.default_model_filename, 'ABéé?', 'octal escapes are UTF-8 bytes');
  assert.equal(p.config.runtime, '');
});

test('comments, < > messages, optional colons, separators, both repeated forms, numbers and booleans', () => {
  const p = pbtxt(`
    # leading comment
    name: "m"   # trailing comment
    max_batch_size: 0x10;
    input < name: "a", data_type: TYPE_FP32; dims: 2 dims: -1 dims: 010 >
    input: [ { name: "b" data_type: 11 dims: [ 1 ] } ]
    output { name: "c" data_type: TYPE_BOOL dims: [ 4 ] is_shape_tensor: True }
    output: { name: "d" data_type: TYPE_BOOL dims: [4] is_shape_tensor: t }
    output { name: "e" data_type: TYPE_BOOL dims: [4] is_shape_tensor: 1 }
    output { name: "f" data_type: TYPE_BOOL dims: [4] is_shape_tensor: f }
    sequence_batching { direct { minimum_slot_utilization: .5f } control_input [] }
    model_metrics { metric_control { metric_identifier { family: "x" } histogram_options { buckets: [ -5.0, -2, 0, 3.5e0, inf ] } } }
  `);
  assert.deepEqual(p.problems, []);
  assert.equal(p.config.max_batch_size, 16);
  assert.deepEqual(p.config.input.map((i) => [i.name, i.data_type, i.dims]), [['a', 'TYPE_FP32', [2, -1, 8]], ['b', 'TYPE_FP32', [1]]]);
  assert.deepEqual(p.config.output.map((o) => o.is_shape_tensor), [true, true, true, false]);
  assert.equal(p.config.sequence_batching!.direct!.minimum_slot_utilization, 0.5);
  assert.deepEqual(p.config.model_metrics!.metric_control[0]!.histogram_options!.buckets, [-5, -2, 0, 3.5, Infinity]);
});

test('a map entry may omit its value, and a duplicate key warns', () => {
  const p = pbtxt('name: "m"\nmetric_tags { key: "a" }\nmetric_tags { key: "a" value: "2" }\n');
  assert.deepEqual(p.config.metric_tags, { a: '2' });
  assert.equal(formatProblems(p.problems), "config.pbtxt:3:20: warning: model 'm': metric_tags.a: duplicate map key 'a'; the last one wins");
});
