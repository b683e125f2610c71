/**
 * Checks of the scheduling choice: dynamic batching, sequence batching, ensemble steps; in Triton's
 * words where it makes the check (core model_config_utils.cc), ours after "; ".
 */
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

function preferred(r: ConfigReporter, path: string, sizes: readonly number[], batcher: 'dynamic batching preferred size' | 'sequence batching preferred batch size'): void {
  const mbs = r.config.max_batch_size;
  const name = r.config.name;
  sizes.forEach((s, i) => {
    if (s <= 0) r.triton(`${path}[${i}]`, `${batcher} must be positive for ${name}`, `${path}[${i}] is ${s}`);
    else if (s > mbs) r.triton(`${path}[${i}]`, `${batcher} must be <= max batch size for ${name}`, `${path}[${i}] is ${s}, max_batch_size ${mbs}`);
  });
}

function dynamicBatching(r: ConfigReporter): void {
  const d = r.config.dynamic_batching;
  if (!d) return;
  if (r.config.max_batch_size === 0) {
    r.warning('dynamic_batching', 'dynamic_batching has no effect when max_batch_size is 0 (the model does not batch); set max_batch_size > 0 or remove dynamic_batching');
  }
  preferred(r, 'dynamic_batching.preferred_batch_size', d.preferred_batch_size, 'dynamic batching preferred size');
  const name = r.config.name;
  const levels = d.priority_levels;
  if (d.default_priority_level > levels) {
    r.triton('dynamic_batching.default_priority_level', `default priority level must be in range [1, ${levels}] for ${name}`,
      `dynamic_batching.default_priority_level ${d.default_priority_level} exceeds priority_levels ${levels}`);
  } else if (levels > 0 && d.default_priority_level === 0) {
    r.triton(r.has('dynamic_batching.default_priority_level') ? 'dynamic_batching.default_priority_level' : 'dynamic_batching.priority_levels',
      `default priority level must be in range [1, ${levels}] for ${name}`, `set dynamic_batching.default_priority_level when priority_levels is ${levels}`);
  }
  for (const key of Object.keys(d.priority_queue_policy)) {
    const level = Number(key);
    if (level < 1 || level > levels) {
      r.triton(`dynamic_batching.priority_queue_policy.${key}`, `priority queue policy must have priority level in range [1, ${levels}] for ${name}`,
        `dynamic_batching.priority_queue_policy: priority level ${key} (priority_levels is ${levels})`);
    }
  }
  if (d.preserve_ordering) {
    if (levels > 1) {
      r.triton('dynamic_batching.preserve_ordering', `Only one priority level is allowed when 'preserve_ordering' is true for ${name}`, `priority_levels is ${levels}`);
    }
    const delays = (p: ModelQueuePolicy | undefined) => p !== undefined && p.default_timeout_microseconds !== 0 && p.timeout_action === 'DELAY';
    const delay = `Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true for ${name}`;
    if (delays(d.default_queue_policy)) r.triton('dynamic_batching.default_queue_policy.timeout_action', delay, 'dynamic_batching.default_queue_policy');
    for (const [k, p] of Object.entries(d.priority_queue_policy)) {
      if (delays(p)) r.triton(`dynamic_batching.priority_queue_policy.${k}`, delay, `dynamic_batching.priority_queue_policy ${k}`);
    }
  }
}

const CORRID_TYPES = ['TYPE_UINT64', 'TYPE_INT64', 'TYPE_UINT32', 'TYPE_INT32', 'TYPE_STRING'];

function sequenceBatching(r: ConfigReporter): void {
  const s = r.config.sequence_batching;
  if (!s) return;
  const base = 'sequence_batching';
  const name = r.config.name;
  if (r.config.response_cache?.enable) {
    r.triton('response_cache', `Response Cache does not currently support model ${name} with sequence batching scheduler. Please disable the response cache.`);
  }
  const names = new Map<string, number>();
  const kinds = new Map<string, string>();
  s.control_input.forEach((ci, i) => {
    const at = `${base}.control_input[${i}]`;
    if (!ci.name) r.triton(r.has(`${at}.name`) ? `${at}.name` : at, `sequence batching control tensor must have a name for ${name}`, at);
    else if (names.has(ci.name)) {
      r.triton(`${at}.name`, `sequence batching control tensor '${ci.name}' is specified for multiple control kinds for ${name}`,
        `${at}: also control_input[${names.get(ci.name)}]; list a control tensor once, with all its controls`);
    } else names.set(ci.name, i);
    if (ci.control.length === 0) r.error(at, `${at}: control input must specify at least one 'control'`);
    ci.control.forEach((ctl, k) => {
      const cat = `${at}.control[${k}]`;
      const prev = kinds.get(ctl.kind);
      if (prev) r.triton(`${cat}.kind`, `sequence batching specifies multiple ${ctl.kind} tensors for ${name}`, `${cat}: already given by ${prev}`);
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
  if (s.oldest) preferred(r, `${base}.oldest.preferred_batch_size`, s.oldest.preferred_batch_size, 'sequence batching preferred batch size');
  const util = s.direct?.minimum_slot_utilization;
  if (util !== undefined && (util < 0 || util > 1)) {
    r.triton(`${base}.direct.minimum_slot_utilization`, `sequence batching minimum slot utilization must be in range (0.0, 1.0] for ${name}`,
      `${base}.direct.minimum_slot_utilization is ${util}`);
  }
}

function control(r: ConfigReporter, at: string, c: SequenceControl): void {
  const name = r.config.name;
  const given = (['int32_false_true', 'fp32_false_true', 'bool_false_true'] as const).filter((k) => (c[k]?.length ?? 0) > 0);
  if (c.kind === 'CONTROL_SEQUENCE_CORRID') {
    if (given.length > 0) {
      r.triton(`${at}.${given[0]}`, `sequence batching must not specify either 'int32_false_true', 'fp32_false_true' or 'bool_false_true' for ${c.kind} for ${name}`,
        `${at}: the correlation ID is the value; give data_type instead`);
    }
    if (!CORRID_TYPES.includes(c.data_type ?? 'TYPE_INVALID')) {
      r.triton(r.has(`${at}.data_type`) ? `${at}.data_type` : at,
        `unexpected data type for control ${c.kind} for ${name}. Allowed data types are TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 and TYPE_STRING`,
        `${at} has ${c.data_type ?? 'no data_type'}`);
    }
    return;
  }
  if (given.length === 0) {
    r.triton(at, `sequence batching must specify either 'int32_false_true', 'fp32_false_true' or 'bool_false_true' for ${c.kind} for ${name}`, at);
  } else if (given.length > 1) {
    r.triton(`${at}.${given[1]}`, `sequence batching specifies more than one from 'int32_false_true', 'fp32_false_true' and 'bool_false_true' for ${c.kind} for ${name}`, at);
  } else if (c[given[0]!]!.length !== 2) {
    r.triton(`${at}.${given[0]}`, `sequence batching control '${given[0]}' must have exactly 2 entries for ${c.kind} for ${name}`,
      `${at}: ${given[0]} has ${c[given[0]!]!.length} (false value, true value)`);
  }
}

function ensemble(r: ConfigReporter): void {
  const c = r.config;
  const e = c.ensemble_scheduling;
  if (c.platform === 'ensemble' && !e) {
    r.triton('platform', `ensemble scheduling must be set for ensemble ${c.name} whose platform is ensemble`, "give ensemble_scheduling steps (or YAML 'steps')");
    return;
  }
  if (!e) return;
  if (c.platform !== 'ensemble') {
    r.triton('ensemble_scheduling', `ensemble scheduling cannot be set for model '${c.name}' whose platform is not ensemble`,
      `ensemble_scheduling (steps) requires platform 'ensemble', got ${c.platform ? `'${c.platform}'` : 'no platform'}`);
  }
  if (c.backend) r.triton('backend', `Ensemble model '${c.name}' must have platform type 'ensemble' and empty backend type`, `backend is '${c.backend}'`);
  if (r.has('instance_group')) r.triton('instance_group', `instance group should not be specified for ensemble '${c.name}'`);
  if (r.has('optimization')) r.triton('optimization', `optimization should not be specified for ensemble '${c.name}'`);
  if (c.model_warmup.length > 0) r.triton('model_warmup', `model_warmup can not be specified for ensemble '${c.name}'`);
  if (e.step.length === 0) {
    r.triton(r.has('ensemble_scheduling.step') ? 'ensemble_scheduling.step' : 'ensemble_scheduling', `must specify 'step' for ensemble '${c.name}'`, 'an ensemble needs at least one step');
  }
  const written = new Map<string, number>();
  e.step.forEach((s, i) => {
    // A control-flow construct (YAML pipelines) names no model and maps no tensors itself; the
    // pipeline compiler checks it and the steps inside it.
    if (s.switch || s.return || s.map || s.loop) return;
    const at = `ensemble_scheduling.step[${i}]`;
    const who = s.model_name ? `step ${i} ('${s.model_name}')` : `step ${i}`;
    const of = `in step ${i} of ensemble '${c.name}'`;
    if (!s.model_name) r.triton(at, `must specify 'model_name' ${of}`, who);
    if (Object.keys(s.input_map).length === 0) r.triton(r.has(`${at}.input_map`) ? `${at}.input_map` : at, `must specify 'input_map' ${of}`, who);
    if (Object.keys(s.output_map).length === 0) r.triton(r.has(`${at}.output_map`) ? `${at}.output_map` : at, `must specify 'output_map' ${of}`, who);
    for (const [k, tensor] of Object.entries(s.output_map)) {
      const prev = written.get(tensor);
      if (prev !== undefined) {
        r.triton(`${at}.output_map.${k}`, `ensemble tensor '${tensor}' can appear in an output map only once for ensemble '${c.name}' step ${i}`,
          `${who}: step ${prev} writes it already`);
      } else written.set(tensor, i);
    }
  });
}
