/** Checks of the scheduling choice: dynamic batching, sequence batching, ensemble steps. */
import type { ConfigReporter } from './config-reporter.js';
import type { ModelQueuePolicy, SequenceControl } from './model-config.js';

export function validateScheduling(r: ConfigReporter): void {
  const c = r.config;
  const set = (['dynamic_batching', 'sequence_batching', 'ensemble_scheduling'] as const).filter((k) => c[k] !== undefined);
  if (set.length > 1) r.error(set[1]!, `only one of dynamic_batching, sequence_batching and ensemble_scheduling may be set, got ${set.join(' and ')}`);
  dynamicBatching(r);
  sequenceBatching(r);
  ensemble(r);
}

function preferred(r: ConfigReporter, path: string, sizes: readonly number[]): void {
  const mbs = r.config.max_batch_size;
  sizes.forEach((s, i) => {
    if (s <= 0) r.error(`${path}[${i}]`, `${path}[${i}]: preferred batch size must be positive, got ${s}`);
    else if (s > mbs) r.error(`${path}[${i}]`, `${path}[${i}]: preferred batch size ${s} exceeds max_batch_size ${mbs}`);
  });
}

function dynamicBatching(r: ConfigReporter): void {
  const d = r.config.dynamic_batching;
  if (!d) return;
  if (r.config.max_batch_size === 0) {
    r.warning('dynamic_batching', 'dynamic_batching has no effect when max_batch_size is 0 (the model does not batch); set max_batch_size > 0 or remove dynamic_batching');
  }
  preferred(r, 'dynamic_batching.preferred_batch_size', d.preferred_batch_size);
  const levels = d.priority_levels;
  if (d.default_priority_level > levels) {
    r.error('dynamic_batching.default_priority_level',
      `dynamic_batching.default_priority_level ${d.default_priority_level} exceeds priority_levels ${levels}`);
  } else if (levels > 0 && d.default_priority_level === 0) {
    r.error(r.has('dynamic_batching.default_priority_level') ? 'dynamic_batching.default_priority_level' : 'dynamic_batching.priority_levels',
      `dynamic_batching.default_priority_level must be in [1, ${levels}] when priority_levels is ${levels}`);
  }
  for (const key of Object.keys(d.priority_queue_policy)) {
    const level = Number(key);
    if (level < 1 || level > levels) {
      r.error(`dynamic_batching.priority_queue_policy.${key}`,
        `dynamic_batching.priority_queue_policy: priority level ${key} is outside [1, ${levels}] (priority_levels is ${levels})`);
    }
  }
  if (d.preserve_ordering) {
    if (levels > 1) r.error('dynamic_batching.preserve_ordering', 'dynamic_batching: only one priority level is allowed when preserve_ordering is true');
    const delays = (p: ModelQueuePolicy | undefined) => p !== undefined && p.default_timeout_microseconds !== 0 && p.timeout_action === 'DELAY';
    if (delays(d.default_queue_policy)) {
      r.error('dynamic_batching.default_queue_policy.timeout_action', 'dynamic_batching: a queue policy cannot use timeout_action DELAY when preserve_ordering is true');
    }
    for (const [k, p] of Object.entries(d.priority_queue_policy)) {
      if (delays(p)) r.error(`dynamic_batching.priority_queue_policy.${k}`, 'dynamic_batching: a queue policy cannot use timeout_action DELAY when preserve_ordering is true');
    }
  }
}

const CORRID_TYPES = ['TYPE_UINT64', 'TYPE_INT64', 'TYPE_UINT32', 'TYPE_INT32', 'TYPE_STRING'];

function sequenceBatching(r: ConfigReporter): void {
  const s = r.config.sequence_batching;
  if (!s) return;
  const base = 'sequence_batching';
  if (r.config.response_cache?.enable) r.error('response_cache', 'response_cache does not support models with sequence_batching; disable the response cache');
  const names = new Map<string, number>();
  const kinds = new Map<string, string>();
  s.control_input.forEach((ci, i) => {
    const at = `${base}.control_input[${i}]`;
    if (!ci.name) r.error(r.has(`${at}.name`) ? `${at}.name` : at, `${at}: control input must specify 'name'`);
    else if (names.has(ci.name)) r.error(`${at}.name`, `${at} '${ci.name}': control tensor is listed more than once (also control_input[${names.get(ci.name)}])`);
    else names.set(ci.name, i);
    if (ci.control.length === 0) r.error(at, `${at}: control input must specify at least one 'control'`);
    ci.control.forEach((ctl, k) => {
      const cat = `${at}.control[${k}]`;
      const prev = kinds.get(ctl.kind);
      if (prev) r.error(`${cat}.kind`, `${cat}: ${ctl.kind} is already given by ${prev}`);
      else kinds.set(ctl.kind, cat);
      control(r, cat, ctl);
    });
  });
  s.state.forEach((st, i) => {
    const at = `${base}.state[${i}]`;
    if (!st.input_name) r.error(r.has(`${at}.input_name`) ? `${at}.input_name` : at, `${at}: state must specify 'input_name'`);
    if (!st.output_name) r.error(r.has(`${at}.output_name`) ? `${at}.output_name` : at, `${at}: state must specify 'output_name'`);
    if (st.data_type === 'TYPE_INVALID') r.error(r.has(`${at}.data_type`) ? `${at}.data_type` : at, `${at}: state must specify 'data_type'`);
    if (st.dims.length === 0) r.error(r.has(`${at}.dims`) ? `${at}.dims` : at, `${at}: state must specify non-empty 'dims'`);
  });
  if (s.oldest) preferred(r, `${base}.oldest.preferred_batch_size`, s.oldest.preferred_batch_size);
  const util = s.direct?.minimum_slot_utilization;
  if (util !== undefined && (util < 0 || util > 1)) {
    r.error(`${base}.direct.minimum_slot_utilization`, `${base}.direct.minimum_slot_utilization must be in [0, 1], got ${util}`);
  }
}

function control(r: ConfigReporter, at: string, c: SequenceControl): void {
  const given = (['int32_false_true', 'fp32_false_true', 'bool_false_true'] as const).filter((k) => (c[k]?.length ?? 0) > 0);
  if (c.kind === 'CONTROL_SEQUENCE_CORRID') {
    if (given.length > 0) r.error(`${at}.${given[0]}`, `${at}: ${c.kind} must not specify ${given[0]}`);
    if (!CORRID_TYPES.includes(c.data_type ?? 'TYPE_INVALID')) {
      r.error(r.has(`${at}.data_type`) ? `${at}.data_type` : at, `${at}: ${c.kind} needs data_type one of ${CORRID_TYPES.join(', ')}`);
    }
    return;
  }
  if (given.length === 0) r.error(at, `${at}: ${c.kind} must specify one of int32_false_true, fp32_false_true or bool_false_true`);
  else if (given.length > 1) r.error(`${at}.${given[1]}`, `${at}: ${c.kind} must specify only one of int32_false_true, fp32_false_true and bool_false_true`);
  else if (c[given[0]!]!.length !== 2) r.error(`${at}.${given[0]}`, `${at}: ${given[0]} must have exactly 2 entries (false value, true value), got ${c[given[0]!]!.length}`);
}

function ensemble(r: ConfigReporter): void {
  const c = r.config;
  const e = c.ensemble_scheduling;
  if (c.platform === 'ensemble' && !e) {
    r.error('platform', "platform is 'ensemble' but no ensemble_scheduling steps are given");
    return;
  }
  if (!e) return;
  if (c.platform !== 'ensemble') {
    r.error('ensemble_scheduling', `ensemble_scheduling (steps) requires platform 'ensemble', got ${c.platform ? `'${c.platform}'` : 'no platform'}`);
  }
  if (c.backend) r.error('backend', `an ensemble must not set a backend, got '${c.backend}'`);
  if (r.has('instance_group')) r.error('instance_group', 'instance_group must not be specified for an ensemble');
  if (r.has('optimization')) r.error('optimization', 'optimization must not be specified for an ensemble');
  if (c.model_warmup.length > 0) r.error('model_warmup', 'model_warmup cannot be specified for an ensemble');
  if (e.step.length === 0) {
    r.error(r.has('ensemble_scheduling.step') ? 'ensemble_scheduling.step' : 'ensemble_scheduling', 'ensemble must specify at least one step');
  }
  const written = new Map<string, number>();
  e.step.forEach((s, i) => {
    // A control-flow construct (YAML pipelines) names no model and maps no tensors itself; the
    // pipeline compiler checks it and the steps inside it.
    if (s.switch || s.return || s.map || s.loop) return;
    const at = `ensemble_scheduling.step[${i}]`;
    const who = s.model_name ? `step ${i} ('${s.model_name}')` : `step ${i}`;
    if (!s.model_name) r.error(at, `${who}: must specify 'model_name'`);
    if (Object.keys(s.input_map).length === 0) r.error(r.has(`${at}.input_map`) ? `${at}.input_map` : at, `${who}: must specify 'input_map'`);
    if (Object.keys(s.output_map).length === 0) r.error(r.has(`${at}.output_map`) ? `${at}.output_map` : at, `${who}: must specify 'output_map'`);
    for (const [k, tensor] of Object.entries(s.output_map)) {
      const prev = written.get(tensor);
      if (prev !== undefined) r.error(`${at}.output_map.${k}`, `${who}: ensemble tensor '${tensor}' is already written by step ${prev}; a tensor can appear in an output_map only once`);
      else written.set(tensor, i);
    }
  });
}
