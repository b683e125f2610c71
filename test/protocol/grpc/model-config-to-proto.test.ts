import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelConfig } from '../../../src/config/index.js';
import { modelConfigToProto } from '../../../src/protocol/grpc/index.js';
import { loadProtos } from '../../../src/frontend/grpc/load-protos.js';

const service = loadProtos()['inference.GRPCInferenceService'] as Record<string, any>;
/** Through the real encoder and decoder, as a client would see it. */
const roundTrip = (config: ModelConfig) =>
  service.ModelConfig.responseDeserialize(service.ModelConfig.responseSerialize({ config: modelConfigToProto(config) })).config;

const base: ModelConfig = {
  name: 'm', platform: 'ensemble', backend: '', runtime: '', version_policy: { specific: { versions: [1, 3] } },
  max_batch_size: 8,
  input: [{ name: 'TEXT', data_type: 'TYPE_STRING', dims: [-1], optional: true, reshape: { shape: [1, -1] } }],
  output: [{ name: 'PROBS', data_type: 'TYPE_FP32', dims: [2], label_filename: 'labels.txt' }],
  batch_input: [{ kind: 'BATCH_ELEMENT_COUNT', target_name: ['N'], data_type: 'TYPE_INT32', source_input: ['TEXT'] }],
  batch_output: [],
  instance_group: [{ name: 'g', kind: 'KIND_CPU', count: 2 }],
  default_model_filename: 'model.onnx', cc_model_filenames: {}, metric_tags: { team: 'nlp' },
  parameters: { k: { string_value: 'v' } },
  model_warmup: [{ name: 'w', batch_size: 1, count: 2, inputs: { TEXT: { data_type: 'TYPE_STRING', dims: [1], zero_data: true } } }],
  model_transaction_policy: { decoupled: true },
  ensemble_scheduling: {
    step: [{ model_name: 'tok', model_version: -1, input_map: { IN: 'TEXT' }, output_map: { IDS: 'ids' } }],
    max_inflight_requests: 4,
  },
  // A config that also carries a batcher keeps only one scheduling choice on the wire.
  dynamic_batching: { preferred_batch_size: [], max_queue_delay_microseconds: 0, preserve_ordering: false, priority_levels: 0, default_priority_level: 0, priority_queue_policy: {} },
  optimization: { execution_accelerators: { gpu_execution_accelerator: [], cpu_execution_accelerator: [{ name: 'openvino', parameters: { a: 'b' } }] } },
  response_cache: { enable: true },
  model_metrics: { metric_control: [{ metric_identifier: { family: 'nv_inference_first_response_histogram_ms' }, histogram_options: { buckets: [1, 10] } }] },
  model_operations: { op_library_filename: ['libops.so'] },
};

test('a JSON ModelConfig survives the proto encoder with Triton field names and numbers', () => {
  const c = roundTrip(base);
  assert.equal(c.name, 'm');
  assert.equal(c.platform, 'ensemble');
  assert.equal(c.max_batch_size, 8);
  assert.deepEqual(c.version_policy, { specific: { versions: ['1', '3'] }, policy_choice: 'specific' });
  assert.equal(c.input[0].data_type, 'TYPE_STRING');
  assert.deepEqual(c.input[0].dims, ['-1']);
  assert.deepEqual(c.input[0].reshape.shape, ['1', '-1']);
  assert.equal(c.input[0].optional, true);
  assert.equal(c.output[0].label_filename, 'labels.txt');
  assert.equal(c.batch_input[0].kind, 'BATCH_ELEMENT_COUNT');
  assert.equal(c.instance_group[0].count, 2);
  assert.equal(c.instance_group[0].kind, 'KIND_CPU');
  assert.deepEqual(c.metric_tags, { team: 'nlp' });
  assert.deepEqual(c.parameters, { k: { string_value: 'v' } });
  assert.equal(c.model_warmup[0].inputs.TEXT.zero_data, true);
  assert.equal(c.model_transaction_policy.decoupled, true);
  assert.equal(c.scheduling_choice, 'ensemble_scheduling');
  assert.equal(c.dynamic_batching, undefined);
  assert.equal(c.ensemble_scheduling.max_inflight_responses, 4);
  assert.deepEqual(c.ensemble_scheduling.step[0].input_map, { IN: 'TEXT' });
  assert.equal(c.ensemble_scheduling.step[0].model_version, '-1');
  assert.equal(c.optimization.execution_accelerators.cpu_execution_accelerator[0].parameters.a, 'b');
  assert.equal(c.response_cache.enable, true);
  assert.deepEqual(c.model_metrics.metric_control[0].histogram_options.buckets, [1, 10]);
  assert.deepEqual(c.model_operations.op_library_filename, ['libops.so']);
});

test('sequence batching keeps one strategy and its controls', () => {
  const { ensemble_scheduling: _e, dynamic_batching: _d, ...rest } = base;
  const c = roundTrip({
    ...rest, platform: 'onnxruntime_onnx',
    sequence_batching: {
      max_sequence_idle_microseconds: 5000000,
      oldest: { max_candidate_sequences: 4, preferred_batch_size: [2], max_queue_delay_microseconds: 10, preserve_ordering: true },
      control_input: [{ name: 'START', control: [{ kind: 'CONTROL_SEQUENCE_START', int32_false_true: [0, 1] }] }],
      state: [{ input_name: 'S_IN', output_name: 'S_OUT', data_type: 'TYPE_FP32', dims: [4], initial_state: [{ name: 'z', data_type: 'TYPE_FP32', dims: [4], zero_data: true }] }],
    },
  });
  assert.equal(c.scheduling_choice, 'sequence_batching');
  const s = c.sequence_batching;
  assert.equal(s.max_sequence_idle_microseconds, '5000000');
  assert.equal(s.strategy_choice, 'oldest');
  assert.equal(s.oldest.max_candidate_sequences, 4);
  assert.deepEqual(s.control_input[0].control[0].int32_false_true, [0, 1]);
  assert.equal(s.control_input[0].control[0].kind, 'CONTROL_SEQUENCE_START');
  assert.equal(s.state[0].initial_state[0].zero_data, true);
});
