import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText, validateConfig, formatProblems } from '../../src/config/index.js';

/** Where `needle` (the nth occurrence) sits in `text`, as line:col; independent of the parser. */
function at(text: string, needle: string, nth = 1): string {
  let i = -1;
  for (let k = 0; k < nth; k++) i = text.indexOf(needle, i + 1);
  assert.ok(i >= 0, `fixture text has no ${nth}. '${needle}'`);
  const before = text.slice(0, i).split('\n');
  return `${before.length}:${before[before.length - 1]!.length + 1}`;
}

interface Case {
  name: string;
  format?: 'pbtxt' | 'yaml' | 'json';
  text: string;
  /** [needle (or [needle, nth]), message fragment, severity] in report order. */
  expect: [string | [string, number], string, ('error' | 'warning')?][];
}

const io = 'input [ { name: "a" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "b" data_type: TYPE_FP32 dims: [ 4 ] } ]\n';

const cases: Case[] = [
  { name: 'unterminated string', text: 'name: "m"\nplatform: "onnx\nmax_batch_size: 1\n',
    expect: [['"onnx', 'unterminated string: missing closing " before end of line']] },
  { name: 'unknown field with a suggestion', text: `name: "m"\n${io}max_batch_sise: 4\n`,
    expect: [['max_batch_sise', "model 'm': unknown field 'max_batch_sise' in ModelConfig; did you mean 'max_batch_size'?"]] },
  { name: 'unknown nested field lists the known ones', text: `name: "m"\n${io}dynamic_batching { max_delay: 5 }\nmax_batch_size: 2\n`,
    expect: [['max_delay', "unknown field 'max_delay' in dynamic_batching (ModelDynamicBatching); known fields: preferred_batch_size, max_queue_delay_microseconds"]] },
  { name: 'bad enum value lists the allowed ones', text: 'name: "m"\ninput { name: "a" data_type: TYPE_FLOAT dims: [1] }\noutput { name: "b" data_type: TYPE_FP32 dims: [1] }\n',
    expect: [['TYPE_FLOAT', "model 'm': input[0].data_type: invalid DataType value 'TYPE_FLOAT' (did you mean TYPE_FP32?); allowed: TYPE_INVALID, TYPE_BOOL,"],
    ] },
  { name: 'quoted enum in pbtxt', text: `name: "m"\n${io}instance_group { kind: "KIND_CPU" }\n`,
    expect: [['"KIND_CPU"', 'instance_group[0].kind: enum value must not be quoted: write KIND_CPU instead of "KIND_CPU"']] },
  { name: 'unquoted string in pbtxt', text: `name: m\n${io}`, expect: [['m\n', 'name: expected a string, got \'m\' (strings must be quoted: "m")']] },
  { name: 'missing colon', text: 'name "m"\n', expect: [['"m"', "expected ':' after field name 'name', got string \"m\""]] },
  { name: 'missing closing brace', text: 'name: "m"\ninput {\n  name: "a"\n  dims: [ 1 ]\n',
    expect: [['{', "missing '}': '{' opened for field 'input' at 2:7 is never closed (reached end of file)"]] },
  { name: 'stray closing brace', text: 'name: "m"\n}\n', expect: [['}', "unexpected '}' with no open message"]] },
  { name: 'list without comma', text: 'name: "m"\ninput { dims: [ 1 2 ] }\n', expect: [['2 ]', "expected ',' or ']' in the list for field 'dims', got '2'"]] },
  { name: 'wrong scalar type', text: `name: "m"\n${io}max_batch_size: "8"\n`, expect: [['"8"', 'max_batch_size: expected an int32, got string "8"']] },
  { name: 'message where a scalar belongs', text: `name: "m"\n${io}backend { x: 1 }\n`, expect: [['{ x', 'backend: expected a string, got a message']] },
  { name: 'singular field set twice', text: `name: "m"\n${io}max_batch_size: 1\nmax_batch_size: 2\n`,
    expect: [[['max_batch_size', 2], 'max_batch_size: field \'max_batch_size\' is set more than once (first at 4:1)']] },
  { name: 'oneof: dynamic and sequence batching', text: `name: "m"\nmax_batch_size: 2\n${io}dynamic_batching { }\nsequence_batching { }\n`,
    expect: [['sequence_batching', "'sequence_batching' cannot be set together with 'dynamic_batching' (only one of dynamic_batching, sequence_batching, ensemble_scheduling may be set)"]] },
  { name: 'version policy oneof and num_versions', text: `name: "m"\n${io}version_policy { latest { num_versions: 0 } all { } }\n`,
    expect: [['all', "'all' cannot be set together with 'latest'"], ['num_versions', 'version_policy.latest.num_versions must be >= 1, got 0']] },
  { name: 'empty dims on a non-batching model', text: 'name: "simple"\ninput [\n  { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] },\n  { name: "INPUT1" data_type: TYPE_INT32 dims: [ ] }\n]\noutput { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 16 ] }\n',
    expect: [[['dims', 2], "model input 'INPUT1' must specify 'dims' for simple; input[1] 'INPUT1': dims must not be empty when max_batch_size is 0"]] },
  { name: 'missing name, data_type and dims; duplicate names; bad dims', text: 'name: "m"\nmax_batch_size: 4\ninput { dims: [ 1 ] data_type: TYPE_FP32 }\ninput { name: "x" }\ninput { name: "x" data_type: TYPE_FP32 dims: [ 0, -2 ] }\noutput { name: "o" data_type: TYPE_FP32 dims: [ 1 ] }\n',
    expect: [
      ['input {', "model input must specify 'name' for m; input[0]"],
      [['input {', 2], "model input 'x' must specify 'data_type' for m; input[1] 'x'"],
      [['input {', 2], "input[1] 'x': dims must not be empty; for a tensor that is only the batch dimension use dims: [1] with reshape: { shape: [] }"],
      [['name: "x"', 2], "input[2] 'x': duplicate input name (also input[1])"],
      ['0, -2', "model input 'x' dimension must be integer >= 1, or -1 to indicate a variable-size dimension for m; input[2] 'x': dims[0] is 0"],
      ['-2 ]', "input[2] 'x': dims[1] is -2"],
    ] },
  { name: 'reshape with a different element count', text: 'name: "m"\ninput { name: "a" data_type: TYPE_FP32 dims: [ 2, 3 ] reshape { shape: [ 5 ] } }\ninput { name: "b" data_type: TYPE_FP32 dims: [ 2, -1, 4 ] reshape: { shape: [ 2, -1, 2, 2 ] } }\ninput { name: "c" data_type: TYPE_FP32 dims: [ 2, -1 ] reshape: { shape: [ -1, 2 ] } }\noutput { name: "o" data_type: TYPE_FP32 dims: [ 1 ] }\n',
    expect: [['reshape {', "model input 'a' has different size for dims and reshape for m; input[0] 'a': reshape [5] has 5 elements but dims [2, 3] have 6"],
      [['reshape: {', 2], "model input 'c' has different size for dims and reshape for m; input[2] 'c': reshape [-1, 2] is incompatible with dims [2, -1]"]] },
  { name: 'TensorRT-only tensor fields on another platform', text: 'name: "m"\nplatform: "onnxruntime_onnx"\ninput { name: "a" data_type: TYPE_INT32 dims: [ 2 ] is_shape_tensor: true }\noutput { name: "b" data_type: TYPE_FP32 dims: [ 4 ] is_non_linear_format_io: true }\n',
    expect: [['is_shape_tensor', "shape tensors are only supported for TensorRT platform for m; input[0] 'a'"],
      ['is_non_linear_format_io', "Non-linear IO format is only supported for the TensorRT platform for m; output[0] 'b'"]] },
  { name: 'negative max_batch_size', text: `name: "m"\nmax_batch_size: -1\n${io}`, expect: [['max_batch_size', "'max_batch_size' must be non-negative value for m; max_batch_size is -1"]] },
  { name: 'ensemble platform without steps', text: `name: "e"\nplatform: "ensemble"\n${io}`,
    expect: [['platform', 'ensemble scheduling must be set for ensemble e whose platform is ensemble; ']] },
  { name: 'steps without platform ensemble', format: 'yaml',
    text: 'name: e\nplatform: onnxruntime_onnx\ninput: [{ name: a, data_type: FP32, dims: [1] }]\noutput: [{ name: b, data_type: FP32, dims: [1] }]\nsteps:\n  - { model: m1, inputs: { x: a } }\n',
    expect: [['steps', "ensemble scheduling cannot be set for model 'e' whose platform is not ensemble; ensemble_scheduling (steps) requires platform 'ensemble', got 'onnxruntime_onnx'"],
      ['{ model', "must specify 'output_map' in step 0 of ensemble 'e'; step 0 ('m1')"]] },
  { name: 'preferred batch size too large; priority levels out of range', text: `name: "m"\nmax_batch_size: 4\n${io}dynamic_batching {\n  preferred_batch_size: [ 2, 8 ]\n  priority_levels: 2\n  default_priority_level: 3\n  priority_queue_policy { key: 5 value { } }\n}\n`,
    expect: [['8 ]', 'dynamic batching preferred size must be <= max batch size for m; dynamic_batching.preferred_batch_size[1] is 8, max_batch_size 4'],
      ['default_priority_level', 'default priority level must be in range [1, 2] for m; dynamic_batching.default_priority_level 3 exceeds priority_levels 2'],
      ['5 value', 'priority queue policy must have priority level in range [1, 2] for m; dynamic_batching.priority_queue_policy: priority level 5']] },
  { name: 'dynamic batching without batching warns', text: `name: "m"\n${io}dynamic_batching { }\n`,
    expect: [['dynamic_batching', 'dynamic_batching has no effect when max_batch_size is 0', 'warning']] },
  { name: 'instance group count below 1', text: `name: "m"\n${io}instance_group [ { count: 0 kind: KIND_CPU gpus: [ 0 ] } ]\n`,
    expect: [['count', "instance_group[0] 'm_0': count must be >= 1, got 0"], ['gpus', 'instance group m_0 of model m has kind KIND_CPU but specifies one or more GPUs; instance_group[0]']] },
  { name: 'control inputs and state without names', text: `name: "m"\nmax_batch_size: 1\n${io}sequence_batching {\n  control_input { control { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0 ] } }\n  state { output_name: "o" data_type: TYPE_FP32 dims: [ 1 ] }\n}\n`,
    expect: [['control_input', 'sequence batching control tensor must have a name for m; sequence_batching.control_input[0]'],
      ['int32_false_true', "sequence batching control 'int32_false_true' must have exactly 2 entries for CONTROL_SEQUENCE_START for m; "],
      ['state', "sequence_batching.state[0]: state must specify 'input_name'"]] },
];

for (const c of cases) {
  test(`config problem: ${c.name}`, () => {
    const parsed = parseConfigText(c.text, 'config.pbtxt', c.format ?? 'pbtxt');
    const problems = validateConfig(parsed);
    const shown = formatProblems(problems);
    assert.equal(problems.length, c.expect.length, `expected ${c.expect.length} problems, got:\n${shown}`);
    c.expect.forEach(([needle, fragment, severity = 'error'], i) => {
      const [n, nth] = Array.isArray(needle) ? needle : [needle, 1];
      const p = problems[i]!;
      assert.equal(`${p.line}:${p.col}`, at(c.text, n, nth), `position of problem ${i}:\n${shown}`);
      assert.equal(p.file, 'config.pbtxt');
      assert.equal(p.severity, severity);
      assert.ok(p.message.includes(fragment), `problem ${i} should include\n  ${fragment}\n${shown}`);
    });
  });
}

test('several problems in one file are all reported, each once, in one pass', () => {
  const text = [
    'name: "multi"',
    'max_batch_size: 2',
    'input { name: "a" data_type: TYPE_FLOAT32 dims: [ 3 ] }',
    'input { name: "b" data_type: TYPE_FP32 dims: [ 0 ] colour: "red" }',
    'output { name: "c" data_type: TYPE_FP32 dims: [ "3" ] }',
    'instance_group { count: 0 }',
  ].join('\n');
  const out = formatProblems(validateConfig(parseConfigText(text, 'multi/config.pbtxt', 'pbtxt'))).split('\n');
  assert.deepEqual(out.map((l) => l.split(': ').slice(0, 2).join(': ')), [
    `multi/config.pbtxt:${at(text, 'TYPE_FLOAT32')}: error`,
    `multi/config.pbtxt:${at(text, 'colour')}: error`,
    `multi/config.pbtxt:${at(text, '"3"')}: error`,
    `multi/config.pbtxt:${at(text, '0 ]')}: error`,
    `multi/config.pbtxt:${at(text, 'count')}: error`,
  ]);
  assert.match(out[0]!, /input\[0\]\.data_type: invalid DataType value 'TYPE_FLOAT32' \(did you mean TYPE_FP32\?\)/);
  assert.ok(!out.some((l) => l.includes("must specify 'data_type'")), 'a bad data_type is not also reported as missing');
});
