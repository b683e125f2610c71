/**
 * model_config.proto as data: every message, its fields (scalar kind, enum, message, map,
 * repeated) and its oneofs. The converter walks this, so unknown fields, wrong enum values and
 * wrong types are caught the same way in pbtxt, YAML and JSON. test/config/model-config-proto.test.ts
 * holds it to the checked-in src/protocol/grpc/model_config.proto (Triton's messages, field for
 * field), and lists the one field accepted beyond it (ModelEnsembling.max_inflight_requests).
 */
import { CONFIG_DATATYPES } from '../tensor/index.js';
import { controlFlowFields } from './control-flow-schema.js';
import { EXPERIMENT_FIELD } from './experiment-schema.js';

export type ScalarKind = 'string' | 'bool' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'float' | 'double';

export interface EnumSchema { readonly name: string; readonly values: readonly string[] }

export type FieldType =
  | { readonly kind: ScalarKind }
  | { readonly kind: 'enum'; readonly enum: EnumSchema }
  | { readonly kind: 'message'; readonly message: MessageSchema };

export interface FieldSchema {
  readonly type: FieldType;
  readonly repeated?: boolean;
  /** A proto `map<key, type>`. */
  readonly mapKey?: 'string' | 'uint64';
  /** Beyond Triton's schema, accepted in YAML only (pipeline control flow). */
  readonly yamlOnly?: boolean;
  /** Beyond Triton's schema, accepted in YAML and JSON but not in config.pbtxt: what it is, for the message. */
  readonly pbtxtRefused?: string;
}

export interface MessageSchema {
  readonly name: string;
  /**
   * What messages call it, for the pipeline's messages: their schema names (ModelEnsembling.Step,
   * Pipeline.Map) are ours or proto-internal and mean nothing to someone who wrote `steps:`.
   */
  readonly label?: string;
  readonly fields: Readonly<Record<string, FieldSchema>>;
  readonly oneofs?: readonly (readonly string[])[];
}

const f = (kind: ScalarKind): FieldSchema => ({ type: { kind } });
const list = (x: FieldSchema): FieldSchema => ({ ...x, repeated: true });
const en = (e: EnumSchema): FieldSchema => ({ type: { kind: 'enum', enum: e } });
const m = (message: MessageSchema): FieldSchema => ({ type: { kind: 'message', message } });
const map = (mapKey: 'string' | 'uint64', value: FieldSchema): FieldSchema => ({ type: value.type, mapKey });
const msg = (name: string, fields: Record<string, FieldSchema>, oneofs?: string[][]): MessageSchema =>
  (oneofs ? { name, fields, oneofs } : { name, fields });

// Enum values are listed in proto number order, so an index is the enum number.
export const DATA_TYPE: EnumSchema = { name: 'DataType', values: CONFIG_DATATYPES };
const INSTANCE_KIND: EnumSchema = { name: 'ModelInstanceGroup.Kind', values: ['KIND_AUTO', 'KIND_GPU', 'KIND_CPU', 'KIND_MODEL'] };
const SECONDARY_KIND: EnumSchema = { name: 'ModelInstanceGroup.SecondaryDevice.SecondaryDeviceKind', values: ['KIND_NVDLA'] };
const FORMAT: EnumSchema = { name: 'ModelInput.Format', values: ['FORMAT_NONE', 'FORMAT_NHWC', 'FORMAT_NCHW'] };
const BATCH_INPUT_KIND: EnumSchema = {
  name: 'BatchInput.Kind',
  values: ['BATCH_ELEMENT_COUNT', 'BATCH_ACCUMULATED_ELEMENT_COUNT', 'BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO',
    'BATCH_MAX_ELEMENT_COUNT_AS_SHAPE', 'BATCH_ITEM_SHAPE', 'BATCH_ITEM_SHAPE_FLATTEN'],
};
const BATCH_OUTPUT_KIND: EnumSchema = { name: 'BatchOutput.Kind', values: ['BATCH_SCATTER_WITH_INPUT_SHAPE'] };
const PRIORITY: EnumSchema = { name: 'ModelOptimizationPolicy.ModelPriority', values: ['PRIORITY_DEFAULT', 'PRIORITY_MAX', 'PRIORITY_MIN'] };
const TIMEOUT_ACTION: EnumSchema = { name: 'ModelQueuePolicy.TimeoutAction', values: ['REJECT', 'DELAY'] };
const CONTROL_KIND: EnumSchema = {
  name: 'ModelSequenceBatching.Control.Kind',
  values: ['CONTROL_SEQUENCE_START', 'CONTROL_SEQUENCE_READY', 'CONTROL_SEQUENCE_END', 'CONTROL_SEQUENCE_CORRID'],
};

const RATE_LIMITER = msg('ModelRateLimiter', {
  resources: list(m(msg('ModelRateLimiter.Resource', { name: f('string'), global: f('bool'), count: f('uint32') }))),
  priority: f('uint32'),
});

const INSTANCE_GROUP = msg('ModelInstanceGroup', {
  name: f('string'), kind: en(INSTANCE_KIND), count: f('int32'), rate_limiter: m(RATE_LIMITER),
  gpus: list(f('int32')),
  secondary_devices: list(m(msg('ModelInstanceGroup.SecondaryDevice', { kind: en(SECONDARY_KIND), device_id: f('int64') }))),
  profile: list(f('string')), passive: f('bool'), host_policy: f('string'),
});

const RESHAPE = msg('ModelTensorReshape', { shape: list(f('int64')) });

const INPUT = msg('ModelInput', {
  name: f('string'), data_type: en(DATA_TYPE), format: en(FORMAT), dims: list(f('int64')), reshape: m(RESHAPE),
  is_shape_tensor: f('bool'), allow_ragged_batch: f('bool'), optional: f('bool'), is_non_linear_format_io: f('bool'),
});

const OUTPUT = msg('ModelOutput', {
  name: f('string'), data_type: en(DATA_TYPE), dims: list(f('int64')), reshape: m(RESHAPE),
  label_filename: f('string'), is_shape_tensor: f('bool'), is_non_linear_format_io: f('bool'),
  // A pipeline output some control-flow paths leave out (YAML pipelines only).
  optional: { type: { kind: 'bool' }, yamlOnly: true },
});

const BATCH_INPUT = msg('BatchInput', {
  kind: en(BATCH_INPUT_KIND), target_name: list(f('string')), data_type: en(DATA_TYPE), source_input: list(f('string')),
});

const BATCH_OUTPUT = msg('BatchOutput', {
  target_name: list(f('string')), kind: en(BATCH_OUTPUT_KIND), source_input: list(f('string')),
});

const VERSION_POLICY = msg('ModelVersionPolicy', {
  latest: m(msg('ModelVersionPolicy.Latest', { num_versions: f('uint32') })),
  all: m(msg('ModelVersionPolicy.All', {})),
  specific: m(msg('ModelVersionPolicy.Specific', { versions: list(f('int64')) })),
}, [['latest', 'all', 'specific']]);

const GRAPH_SHAPE = msg('ModelOptimizationPolicy.Cuda.GraphSpec.Shape', { dim: list(f('int64')) });
const GRAPH_SPEC = msg('ModelOptimizationPolicy.Cuda.GraphSpec', {
  batch_size: f('int32'), input: map('string', m(GRAPH_SHAPE)),
  graph_lower_bound: m(msg('ModelOptimizationPolicy.Cuda.GraphSpec.LowerBound', {
    batch_size: f('int32'), input: map('string', m(GRAPH_SHAPE)),
  })),
});
const ACCELERATOR = msg('ModelOptimizationPolicy.ExecutionAccelerators.Accelerator', {
  name: f('string'), parameters: map('string', f('string')),
});
const PINNED = msg('ModelOptimizationPolicy.PinnedMemoryBuffer', { enable: f('bool') });
const OPTIMIZATION = msg('ModelOptimizationPolicy', {
  graph: m(msg('ModelOptimizationPolicy.Graph', { level: f('int32') })),
  priority: en(PRIORITY),
  cuda: m(msg('ModelOptimizationPolicy.Cuda', {
    graphs: f('bool'), busy_wait_events: f('bool'), graph_spec: list(m(GRAPH_SPEC)), output_copy_stream: f('bool'),
  })),
  execution_accelerators: m(msg('ModelOptimizationPolicy.ExecutionAccelerators', {
    gpu_execution_accelerator: list(m(ACCELERATOR)), cpu_execution_accelerator: list(m(ACCELERATOR)),
  })),
  input_pinned_memory: m(PINNED), output_pinned_memory: m(PINNED),
  gather_kernel_buffer_threshold: f('uint32'), eager_batching: f('bool'),
});

const QUEUE_POLICY = msg('ModelQueuePolicy', {
  timeout_action: en(TIMEOUT_ACTION), default_timeout_microseconds: f('uint64'),
  allow_timeout_override: f('bool'), max_queue_size: f('uint32'),
});

const DYNAMIC_BATCHING = msg('ModelDynamicBatching', {
  preferred_batch_size: list(f('int32')), max_queue_delay_microseconds: f('uint64'), preserve_ordering: f('bool'),
  priority_levels: f('uint64'), default_priority_level: f('uint64'), default_queue_policy: m(QUEUE_POLICY),
  priority_queue_policy: map('uint64', m(QUEUE_POLICY)),
});

const CONTROL = msg('ModelSequenceBatching.Control', {
  kind: en(CONTROL_KIND), int32_false_true: list(f('int32')), fp32_false_true: list(f('float')),
  bool_false_true: list(f('bool')), data_type: en(DATA_TYPE),
});
const SEQUENCE_BATCHING = msg('ModelSequenceBatching', {
  direct: m(msg('ModelSequenceBatching.StrategyDirect', {
    max_queue_delay_microseconds: f('uint64'), minimum_slot_utilization: f('float'),
  })),
  oldest: m(msg('ModelSequenceBatching.StrategyOldest', {
    max_candidate_sequences: f('int32'), preferred_batch_size: list(f('int32')),
    max_queue_delay_microseconds: f('uint64'), preserve_ordering: f('bool'),
  })),
  max_sequence_idle_microseconds: f('uint64'),
  control_input: list(m(msg('ModelSequenceBatching.ControlInput', { name: f('string'), control: list(m(CONTROL)) }))),
  state: list(m(msg('ModelSequenceBatching.State', {
    input_name: f('string'), output_name: f('string'), data_type: en(DATA_TYPE), dims: list(f('int64')),
    initial_state: list(m(msg('ModelSequenceBatching.InitialState', {
      data_type: en(DATA_TYPE), dims: list(f('int64')), zero_data: f('bool'), data_file: f('string'), name: f('string'),
    }, [['zero_data', 'data_file']]))),
    use_same_buffer_for_input_output: f('bool'), use_growable_memory: f('bool'),
  }))),
  iterative_sequence: f('bool'),
}, [['direct', 'oldest']]);

const stepFields: Record<string, FieldSchema> = {
  model_name: f('string'), model_version: f('int64'), input_map: map('string', f('string')),
  output_map: map('string', f('string')), model_namespace: f('string'),
};
export const ENSEMBLE_STEP: MessageSchema = { ...msg('ModelEnsembling.Step', stepFields), label: 'step' };
// Added after the fact because a construct's `steps:` are steps again (the schema recurses).
Object.assign(stepFields, controlFlowFields(ENSEMBLE_STEP));
const ENSEMBLING: MessageSchema = {
  ...msg('ModelEnsembling', { step: list(m(ENSEMBLE_STEP)), max_inflight_requests: f('uint32'), max_inflight_responses: f('uint32') }),
  label: 'ensemble_scheduling',
};

const MODEL_PARAMETER = msg('ModelParameter', { string_value: f('string') });

const WARMUP = msg('ModelWarmup', {
  name: f('string'), batch_size: f('uint32'),
  inputs: map('string', m(msg('ModelWarmup.Input', {
    data_type: en(DATA_TYPE), dims: list(f('int64')), zero_data: f('bool'), random_data: f('bool'), input_data_file: f('string'),
  }, [['zero_data', 'random_data', 'input_data_file']]))),
  count: f('uint32'),
});

const METRICS = msg('ModelMetrics', {
  metric_control: list(m(msg('ModelMetrics.MetricControl', {
    metric_identifier: m(msg('ModelMetrics.MetricControl.MetricIdentifier', { family: f('string') })),
    histogram_options: m(msg('ModelMetrics.MetricControl.HistogramOptions', { buckets: list(f('double')) })),
  }))),
});

export const MODEL_CONFIG: MessageSchema = msg('ModelConfig', {
  name: f('string'), platform: f('string'), backend: f('string'), runtime: f('string'),
  version_policy: m(VERSION_POLICY), max_batch_size: f('int32'),
  input: list(m(INPUT)), output: list(m(OUTPUT)), batch_input: list(m(BATCH_INPUT)), batch_output: list(m(BATCH_OUTPUT)),
  optimization: m(OPTIMIZATION),
  dynamic_batching: m(DYNAMIC_BATCHING), sequence_batching: m(SEQUENCE_BATCHING), ensemble_scheduling: m(ENSEMBLING),
  instance_group: list(m(INSTANCE_GROUP)), default_model_filename: f('string'),
  cc_model_filenames: map('string', f('string')), metric_tags: map('string', f('string')),
  parameters: map('string', m(MODEL_PARAMETER)), model_warmup: list(m(WARMUP)),
  model_operations: m(msg('ModelOperations', { op_library_filename: list(f('string')) })),
  model_transaction_policy: m(msg('ModelTransactionPolicy', { decoupled: f('bool') })),
  model_repository_agents: m(msg('ModelRepositoryAgents', {
    agents: list(m(msg('ModelRepositoryAgents.Agent', { name: f('string'), parameters: map('string', f('string')) }))),
  })),
  response_cache: m(msg('ModelResponseCache', { enable: f('bool') })),
  model_metrics: m(METRICS),
  experiment: EXPERIMENT_FIELD,
}, [['dynamic_batching', 'sequence_batching', 'ensemble_scheduling']]);
