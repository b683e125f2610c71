/**
 * The typed, frozen model configuration. Field names are Triton's JSON names (model_config.proto
 * field names, as the `/v2/models/{m}/config` endpoint prints them), so the same object is parsed
 * from config.pbtxt or config.yaml and served as JSON unchanged. int64 fields are plain numbers.
 * Enums keep their proto spelling (`TYPE_FP32`, `KIND_CPU`). test/config/model-config-proto.test.ts
 * holds every interface here and the parser's schema to the checked-in model_config.proto.
 */
import type { ConfigDataType } from '../tensor/index.js';

export type { ConfigDataType };

interface ModelTensorReshape { shape: number[] }

export interface ModelInput {
  name: string;
  data_type: ConfigDataType;
  format?: 'FORMAT_NONE' | 'FORMAT_NHWC' | 'FORMAT_NCHW';
  dims: number[];
  reshape?: ModelTensorReshape;
  is_shape_tensor?: boolean;
  allow_ragged_batch?: boolean;
  optional?: boolean;
  is_non_linear_format_io?: boolean;
}

export interface ModelOutput {
  name: string;
  data_type: ConfigDataType;
  dims: number[];
  reshape?: ModelTensorReshape;
  label_filename?: string;
  is_shape_tensor?: boolean;
  is_non_linear_format_io?: boolean;
  /** YAML pipelines only: the output may be absent on some control-flow paths. */
  optional?: boolean;
}

type BatchInputKind =
  | 'BATCH_ELEMENT_COUNT' | 'BATCH_ACCUMULATED_ELEMENT_COUNT' | 'BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO'
  | 'BATCH_MAX_ELEMENT_COUNT_AS_SHAPE' | 'BATCH_ITEM_SHAPE' | 'BATCH_ITEM_SHAPE_FLATTEN';

interface BatchInput {
  kind: BatchInputKind;
  target_name: string[];
  data_type: ConfigDataType;
  source_input: string[];
}

interface BatchOutput {
  target_name: string[];
  kind: 'BATCH_SCATTER_WITH_INPUT_SHAPE';
  source_input: string[];
}

export interface ModelVersionPolicy {
  latest?: { num_versions: number };
  all?: Record<never, never>;
  specific?: { versions: number[] };
}

type InstanceKind = 'KIND_AUTO' | 'KIND_GPU' | 'KIND_CPU' | 'KIND_MODEL';

export interface ModelInstanceGroup {
  name: string;
  kind: InstanceKind;
  /** Absent in a parsed config that sets none; a loaded model's config always has it (withInstanceCounts). */
  count?: number;
  gpus?: number[];
  profile?: string[];
  passive?: boolean;
  host_policy?: string;
  rate_limiter?: { resources: { name: string; global: boolean; count: number }[]; priority: number };
  secondary_devices?: { kind: 'KIND_NVDLA'; device_id: number }[];
}

type TimeoutAction = 'REJECT' | 'DELAY';

export interface ModelQueuePolicy {
  timeout_action: TimeoutAction;
  default_timeout_microseconds: number;
  allow_timeout_override: boolean;
  max_queue_size: number;
}

export interface ModelDynamicBatching {
  preferred_batch_size: number[];
  max_queue_delay_microseconds: number;
  preserve_ordering: boolean;
  priority_levels: number;
  default_priority_level: number;
  default_queue_policy?: ModelQueuePolicy;
  priority_queue_policy: Record<string, ModelQueuePolicy>;
}

type ControlKind =
  | 'CONTROL_SEQUENCE_START' | 'CONTROL_SEQUENCE_READY' | 'CONTROL_SEQUENCE_END' | 'CONTROL_SEQUENCE_CORRID';

export interface SequenceControl {
  kind: ControlKind;
  int32_false_true?: number[];
  fp32_false_true?: number[];
  bool_false_true?: boolean[];
  data_type?: ConfigDataType;
}

export interface SequenceControlInput {
  name: string;
  control: SequenceControl[];
}

interface SequenceInitialState {
  data_type: ConfigDataType;
  dims: number[];
  zero_data?: boolean;
  data_file?: string;
  name: string;
}

export interface SequenceState {
  input_name: string;
  output_name: string;
  data_type: ConfigDataType;
  dims: number[];
  initial_state: SequenceInitialState[];
  use_same_buffer_for_input_output?: boolean;
  use_growable_memory?: boolean;
}

interface SequenceStrategyDirect {
  max_queue_delay_microseconds: number;
  minimum_slot_utilization: number;
}

interface SequenceStrategyOldest {
  max_candidate_sequences: number;
  preferred_batch_size: number[];
  max_queue_delay_microseconds: number;
  preserve_ordering: boolean;
}

export interface ModelSequenceBatching {
  direct?: SequenceStrategyDirect;
  oldest?: SequenceStrategyOldest;
  max_sequence_idle_microseconds: number;
  control_input: SequenceControlInput[];
  state: SequenceState[];
  iterative_sequence?: boolean;
}

interface EnsembleStep {
  model_name: string;
  model_version: number;
  input_map: Record<string, string>;
  output_map: Record<string, string>;
  model_namespace?: string;
  /** YAML pipelines only (control flow); a step inside a construct has no defaults filled. */
  when?: string;
  switch?: PipelineSwitch;
  return?: PipelineReturn;
  map?: PipelineMap;
  loop?: PipelineLoop;
}

/** A step as nested inside a construct: normalizeConfig fills no defaults there. */
export type NestedStep = Partial<EnsembleStep>;

interface PipelineSwitch {
  name?: string;
  cases?: { when?: string; steps?: NestedStep[] }[];
  default?: NestedStep[];
}

export interface PipelineReturn {
  when?: string;
  outputs?: Record<string, { tensor?: string; value?: string[] }>;
}

export interface PipelineMap {
  over?: string;
  as?: string;
  concurrency?: number;
  max_items?: number;
  steps?: NestedStep[];
  outputs?: Record<string, string>;
}

export interface PipelineLoop {
  max?: number;
  carry?: Record<string, string>;
  while?: string;
  steps?: NestedStep[];
  next?: Record<string, string>;
  outputs?: Record<string, string>;
}

interface ModelEnsembling {
  step: EnsembleStep[];
  max_inflight_requests?: number;
  /** model_config.proto's name for the in-flight bound (0 = unlimited). */
  max_inflight_responses?: number;
}

/**
 * A Tributary experiment (YAML and JSON configs only): the model routes each request to one of
 * its variants by weight, optionally sticky on a header or parameter, and may mirror a copy to a
 * shadow model. docs/experiments.md.
 */
interface ModelExperiment {
  variants: ExperimentVariant[];
  sticky?: { header?: string; parameter?: string };
  mirror?: ExperimentMirror;
}

interface ExperimentVariant {
  model: string;
  /** A version of the model ("2"); absent = the version the model serves by default. */
  version?: string;
  /** Share of the traffic, relative to the other variants' (>= 0; default 1). */
  weight: number;
}

interface ExperimentMirror {
  model: string;
  version?: string;
  /** Share of the requests copied to the mirror, 0..100 (default 100). */
  percent: number;
  /** Mirrored requests in flight at once; past it, copies are dropped and counted (default 64). */
  max_inflight_requests: number;
}

interface ModelParameter { string_value: string }

interface ModelWarmupInput {
  data_type: ConfigDataType;
  dims: number[];
  zero_data?: boolean;
  random_data?: boolean;
  input_data_file?: string;
}

interface ModelWarmup {
  name: string;
  batch_size: number;
  inputs: Record<string, ModelWarmupInput>;
  count: number;
}

interface ExecutionAccelerator {
  name: string;
  parameters: Record<string, string>;
}

interface CudaGraphShape { dim: number[] }

interface CudaGraphSpec {
  batch_size: number;
  input: Record<string, CudaGraphShape>;
  graph_lower_bound?: { batch_size: number; input: Record<string, CudaGraphShape> };
}

interface ModelOptimizationPolicy {
  priority?: 'PRIORITY_DEFAULT' | 'PRIORITY_MAX' | 'PRIORITY_MIN';
  graph?: { level: number };
  cuda?: { graphs?: boolean; busy_wait_events?: boolean; output_copy_stream?: boolean; graph_spec?: CudaGraphSpec[] };
  execution_accelerators?: {
    gpu_execution_accelerator: ExecutionAccelerator[];
    cpu_execution_accelerator: ExecutionAccelerator[];
  };
  input_pinned_memory?: { enable: boolean };
  output_pinned_memory?: { enable: boolean };
  gather_kernel_buffer_threshold?: number;
  eager_batching?: boolean;
}

interface ModelTransactionPolicy { decoupled: boolean }

interface ModelResponseCache { enable: boolean }

interface ModelRepositoryAgents { agents: { name: string; parameters: Record<string, string> }[] }

interface ModelMetrics {
  metric_control: { metric_identifier: { family: string }; histogram_options?: { buckets: number[] } }[];
}

export interface ModelConfig {
  name: string;
  platform: string;
  backend: string;
  runtime: string;
  version_policy: ModelVersionPolicy;
  max_batch_size: number;
  input: ModelInput[];
  output: ModelOutput[];
  batch_input: BatchInput[];
  batch_output: BatchOutput[];
  optimization?: ModelOptimizationPolicy;
  dynamic_batching?: ModelDynamicBatching;
  sequence_batching?: ModelSequenceBatching;
  ensemble_scheduling?: ModelEnsembling;
  instance_group: ModelInstanceGroup[];
  default_model_filename: string;
  cc_model_filenames: Record<string, string>;
  metric_tags: Record<string, string>;
  parameters: Record<string, ModelParameter>;
  model_warmup: ModelWarmup[];
  model_operations?: { op_library_filename: string[] };
  model_transaction_policy: ModelTransactionPolicy;
  model_repository_agents?: ModelRepositoryAgents;
  response_cache?: ModelResponseCache;
  model_metrics?: ModelMetrics;
  /** Tributary only: this model is an experiment over other models (no backend). */
  experiment?: ModelExperiment;
}
