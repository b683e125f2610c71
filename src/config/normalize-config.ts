/**
 * Fill Triton's defaults so every consumer sees every field (what `/v2/models/m/config` prints):
 * proto3 zero values for absent scalars, empty lists and maps, plus the server-side defaults of
 * Triton's NormalizeModelConfig / NormalizeInstanceGroup (version_policy latest 1, preferred batch
 * size = max_batch_size, sequence idle 1 s, pinned memory on, one CPU instance group, ...); an
 * instance count the config leaves out waits for the backend (withInstanceCounts).
 * Only absent values are filled, so an explicit bad value (count: 0) still reaches validation.
 * The input is never mutated.
 */
import type { ModelConfig } from './model-config.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Rec = Record<string, any>;

interface NormalizeOptions {
  /** Model name (the directory name) used when the config has none. */
  name?: string;
  /** What KIND_AUTO instance groups become; this server runs on CPU unless told otherwise. */
  autoKind?: 'KIND_CPU' | 'KIND_GPU';
}

/** Microseconds a sequence may idle before it is released (Triton's default). */
const SEQUENCE_IDLE_DEFAULT_MICROSECONDS = 1_000_000;

const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? { ...(v as Rec) } : {});
const arr = (v: unknown): any[] => (Array.isArray(v) ? [...v] : []);
const mapValues = (v: unknown, fn: (x: any) => any): Rec =>
  Object.fromEntries(Object.entries(rec(v)).map(([k, x]) => [k, fn(x)]));
const defaults = (v: unknown, d: Rec): Rec => {
  const out = { ...d, ...rec(v) };
  for (const k of Object.keys(d)) if (out[k] === undefined) out[k] = d[k];
  return out;
};

export function normalizeConfig(partial: Partial<ModelConfig> | object, options: { name?: string; autoKind?: 'KIND_CPU' | 'KIND_GPU' } = {}): ModelConfig {
  const src = rec(partial);
  const c = defaults(src, {
    name: options.name ?? '', platform: '', backend: '', runtime: '', max_batch_size: 0,
    default_model_filename: '',
  });
  if (!c.name && options.name) c.name = options.name;
  const mbs: number = typeof c.max_batch_size === 'number' ? c.max_batch_size : 0;
  // An experiment, like a pipeline, runs no instances and no optimization of its own.
  const ensemble = c.platform === 'ensemble' || c.ensemble_scheduling !== undefined || src.experiment !== undefined;

  c.version_policy = versionPolicy(src.version_policy);
  c.input = arr(src.input).map(input);
  c.output = arr(src.output).map(output);
  c.batch_input = arr(src.batch_input).map((b) => defaults(b, {
    kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_INVALID', target_name: [], source_input: [] }));
  c.batch_output = arr(src.batch_output).map((b) => defaults(b, {
    kind: 'BATCH_SCATTER_WITH_INPUT_SHAPE', target_name: [], source_input: [] }));
  if (!ensemble || src.optimization !== undefined) c.optimization = optimization(src.optimization, ensemble);
  if (src.dynamic_batching !== undefined) c.dynamic_batching = dynamicBatching(src.dynamic_batching, mbs);
  if (src.sequence_batching !== undefined) c.sequence_batching = sequenceBatching(src.sequence_batching, mbs);
  if (src.ensemble_scheduling !== undefined) c.ensemble_scheduling = ensembling(src.ensemble_scheduling);
  c.instance_group = instanceGroups(src.instance_group, String(c.name), ensemble, options.autoKind ?? 'KIND_CPU');
  c.cc_model_filenames = rec(src.cc_model_filenames);
  c.metric_tags = rec(src.metric_tags);
  c.parameters = mapValues(src.parameters, (p) => defaults(p, { string_value: '' }));
  c.model_warmup = arr(src.model_warmup).map((w) => {
    const out = defaults(w, { name: '', batch_size: 1, count: 0 });
    out.inputs = mapValues(out.inputs, (i) => defaults(i, { data_type: 'TYPE_INVALID', dims: [] }));
    return out;
  });
  if (src.model_operations !== undefined) c.model_operations = defaults(src.model_operations, { op_library_filename: [] });
  c.model_transaction_policy = defaults(src.model_transaction_policy, { decoupled: false });
  if (src.model_repository_agents !== undefined) {
    c.model_repository_agents = { agents: arr(rec(src.model_repository_agents).agents).map((a) => defaults(a, { name: '', parameters: {} })) };
  }
  if (src.response_cache !== undefined) c.response_cache = defaults(src.response_cache, { enable: false });
  if (src.experiment !== undefined) c.experiment = experiment(src.experiment);
  if (src.model_metrics !== undefined) {
    c.model_metrics = { metric_control: arr(rec(src.model_metrics).metric_control).map((m) => rec(m)) };
  }
  return c as ModelConfig;
}

function versionPolicy(v: unknown): Rec {
  const p = rec(v);
  if (p.latest === undefined && p.all === undefined && p.specific === undefined) return { latest: { num_versions: 1 } };
  const out: Rec = {};
  if (p.latest !== undefined) out.latest = defaults(p.latest, { num_versions: 1 });
  if (p.all !== undefined) out.all = {};
  if (p.specific !== undefined) out.specific = defaults(p.specific, { versions: [] });
  return out;
}

function reshape(io: Rec): Rec {
  if (io.reshape !== undefined) io.reshape = defaults(io.reshape, { shape: [] });
  return io;
}

function input(v: unknown): Rec {
  return reshape(defaults(v, {
    name: '', data_type: 'TYPE_INVALID', format: 'FORMAT_NONE', dims: [], is_shape_tensor: false,
    allow_ragged_batch: false, optional: false, is_non_linear_format_io: false,
  }));
}

function output(v: unknown): Rec {
  return reshape(defaults(v, {
    name: '', data_type: 'TYPE_INVALID', dims: [], label_filename: '', is_shape_tensor: false, is_non_linear_format_io: false,
  }));
}

function optimization(v: unknown, ensemble: boolean): Rec {
  const o = defaults(v, { priority: 'PRIORITY_DEFAULT', gather_kernel_buffer_threshold: 0, eager_batching: false });
  if (!ensemble) {
    o.input_pinned_memory = defaults(o.input_pinned_memory, { enable: true });
    o.output_pinned_memory = defaults(o.output_pinned_memory, { enable: true });
  }
  if (o.graph !== undefined) o.graph = defaults(o.graph, { level: 0 });
  if (o.cuda !== undefined) {
    o.cuda = defaults(o.cuda, { graphs: false, busy_wait_events: false, output_copy_stream: false, graph_spec: [] });
  }
  if (o.execution_accelerators !== undefined) {
    const acc = (a: unknown) => defaults(a, { name: '', parameters: {} });
    const ea = rec(o.execution_accelerators);
    o.execution_accelerators = {
      gpu_execution_accelerator: arr(ea.gpu_execution_accelerator).map(acc),
      cpu_execution_accelerator: arr(ea.cpu_execution_accelerator).map(acc),
    };
  }
  return o;
}

function queuePolicy(v: unknown): Rec {
  return defaults(v, { timeout_action: 'REJECT', default_timeout_microseconds: 0, allow_timeout_override: false, max_queue_size: 0 });
}

function dynamicBatching(v: unknown, mbs: number): Rec {
  const d = defaults(v, {
    preferred_batch_size: [], max_queue_delay_microseconds: 0, preserve_ordering: false,
    priority_levels: 0, default_priority_level: 0,
  });
  if (arr(d.preferred_batch_size).length === 0 && mbs > 0) d.preferred_batch_size = [mbs];
  d.default_queue_policy = queuePolicy(d.default_queue_policy);
  d.priority_queue_policy = mapValues(d.priority_queue_policy, queuePolicy);
  return d;
}

function sequenceBatching(v: unknown, mbs: number): Rec {
  const s = defaults(v, { max_sequence_idle_microseconds: 0, control_input: [], state: [], iterative_sequence: false });
  if (!s.max_sequence_idle_microseconds) s.max_sequence_idle_microseconds = SEQUENCE_IDLE_DEFAULT_MICROSECONDS;
  if (s.direct !== undefined) s.direct = defaults(s.direct, { max_queue_delay_microseconds: 0, minimum_slot_utilization: 0 });
  if (s.oldest !== undefined) {
    s.oldest = defaults(s.oldest, { max_candidate_sequences: 0, preferred_batch_size: [], max_queue_delay_microseconds: 0, preserve_ordering: false });
    if (s.oldest.preferred_batch_size.length === 0 && mbs > 0) s.oldest.preferred_batch_size = [mbs];
  }
  s.control_input = arr(s.control_input).map((ci) => {
    const out = defaults(ci, { name: '', control: [] });
    out.control = arr(out.control).map((k) => defaults(k, {
      kind: 'CONTROL_SEQUENCE_START', int32_false_true: [], fp32_false_true: [], bool_false_true: [], data_type: 'TYPE_INVALID' }));
    return out;
  });
  s.state = arr(s.state).map((st) => {
    const out = defaults(st, { input_name: '', output_name: '', data_type: 'TYPE_INVALID', dims: [], initial_state: [],
      use_same_buffer_for_input_output: false, use_growable_memory: false });
    out.initial_state = arr(out.initial_state).map((i) => defaults(i, { data_type: 'TYPE_INVALID', dims: [], name: '' }));
    return out;
  });
  return s;
}

function ensembling(v: unknown): Rec {
  const e = rec(v);
  // An omitted model_version means "latest" (-1), as every Triton example spells out.
  e.step = arr(e.step).map((s) => defaults(s, { model_name: '', model_version: -1, input_map: {}, output_map: {} }));
  return e;
}

/** Defaults of an experiment: equal weights, a mirror that copies every request, 64 copies in flight. */
function experiment(v: unknown): Rec {
  const e = rec(v);
  e.variants = arr(e.variants).map((x) => defaults(x, { model: '', weight: 1 }));
  if (e.sticky !== undefined) e.sticky = rec(e.sticky);
  if (e.mirror !== undefined) e.mirror = defaults(e.mirror, { model: '', percent: 100, max_inflight_requests: 64 });
  return e;
}

function instanceGroups(v: unknown, name: string, ensemble: boolean, autoKind: string): Rec[] {
  const groups = arr(v);
  if (ensemble) return groups.map((g) => rec(g));
  // Triton (core NormalizeInstanceGroup) names the group it adds after the model, and an unnamed
  // group the config gives `<model>_<index>`.
  if (groups.length === 0) groups.push({ name });
  // `count` stays absent when the config gives none: Triton's default depends on the backend
  // (SetDefaultInstanceCount), which may only be known once the model files are seen at load;
  // withInstanceCounts() settles it then.
  return groups.map((g, i) => {
    const out = defaults(g, { name: `${name}_${i}`, kind: autoKind, gpus: [], secondary_devices: [], profile: [], passive: false, host_policy: '' });
    if (!out.name) out.name = `${name}_${i}`;
    if (out.kind === 'KIND_AUTO') out.kind = autoKind;
    return out;
  });
}
