/**
 * Semantic checks of a parsed config (Triton's ValidateModelConfig, ValidateInstanceGroup,
 * ValidateModelIOConfig), collecting every problem at once, each at its file:line:col.
 * Returns the parse/schema problems already in `parsed.problems` followed by the semantic ones;
 * a semantic problem at or under a path that already has a parse problem is left out, so one
 * mistake is reported once (a bad data_type is not also "missing data_type").
 */
import type { ConfigProblem, ParsedConfig } from './config-problem.js';
import { ConfigReporter } from './config-reporter.js';
import { isPathWithin } from './position-of.js';
import { validateIo } from './validate-io.js';
import { validateScheduling } from './validate-scheduling.js';
import { validateExperiment } from './validate-experiment.js';
import { validateOpenAi } from './validate-openai.js';

export function validateConfig(parsed: ParsedConfig): ConfigProblem[] {
  const r = new ConfigReporter(parsed);
  const c = r.config;
  if (!c.name) r.triton('name', "model configuration must specify 'name'");
  if (c.max_batch_size < 0) r.triton('max_batch_size', `'max_batch_size' must be non-negative value for ${c.name}`, `max_batch_size is ${c.max_batch_size}`);
  versionPolicy(r);
  validateIo(r);
  validateScheduling(r);
  validateExperiment(r);
  validateOpenAi(r);
  instanceGroups(r);
  warmup(r);
  if (c.model_transaction_policy.decoupled && c.response_cache?.enable) {
    r.triton('response_cache', `Response Cache does not currently support model ${c.name} with 'decoupled' transaction policy. Please disable the response cache.`);
  }
  c.model_metrics?.metric_control.forEach((m, i) => {
    const at = `model_metrics.metric_control[${i}]`;
    if (!m.metric_identifier) r.triton(at, "metric control must specify 'metric_identifier'", at);
    else if (!m.metric_identifier.family) r.triton(at, "metric identifier must specify non-empty 'family'", at);
    if (!m.histogram_options) r.triton(at, "metric control must specify 'histogram_options'", at);
    else if (!m.histogram_options.buckets?.length) r.triton(at, "histogram options must specify non-empty 'buckets'", at);
  });
  const earlier = parsed.problems;
  const fresh = r.problems.filter((p) => !earlier.some((e) => isPathWithin(p.path, e.path) || isPathWithin(e.path, p.path)));
  return [...earlier, ...fresh];
}

function versionPolicy(r: ConfigReporter): void {
  const v = r.config.version_policy;
  const set = (['latest', 'all', 'specific'] as const).filter((k) => v[k] !== undefined);
  if (set.length > 1) r.error(`version_policy.${set[1]}`, `version_policy: only one of latest, all and specific may be set, got ${set.join(' and ')}`);
  if (v.latest && v.latest.num_versions < 1) {
    r.error('version_policy.latest.num_versions', `version_policy.latest.num_versions must be >= 1, got ${v.latest.num_versions}`);
  }
  if (v.specific) {
    if (v.specific.versions.length === 0) r.error('version_policy.specific', 'version_policy.specific must list at least one version');
    v.specific.versions.forEach((n, i) => {
      if (n < 1) r.error(`version_policy.specific.versions[${i}]`, `version_policy.specific.versions[${i}] must be >= 1, got ${n}`);
    });
  }
}

function instanceGroups(r: ConfigReporter): void {
  const c = r.config;
  c.instance_group.forEach((g, i) => {
    const at = `instance_group[${i}]`;
    const who = `${at} '${g.name}'`;
    if (g.count !== undefined && g.count < 1) r.error(`${at}.count`, `${who}: count must be >= 1, got ${g.count}`);
    if ((g.kind === 'KIND_CPU' || g.kind === 'KIND_MODEL') && (g.gpus?.length ?? 0) > 0) {
      r.triton(`${at}.gpus`, `instance group ${g.name} of model ${c.name} has kind ${g.kind} but specifies one or more GPUs`, at);
    }
    (g.gpus ?? []).forEach((id, k) => {
      if (id < 0) r.error(`${at}.gpus[${k}]`, `${who}: gpu id must be >= 0, got ${id}`);
    });
  });
}

function warmup(r: ConfigReporter): void {
  const c = r.config;
  c.model_warmup.forEach((w, i) => {
    const at = `model_warmup[${i}]`;
    const who = w.name ? `${at} '${w.name}'` : at;
    if (!w.name) r.error(at, `${at}: must specify 'name'`);
    if (w.batch_size < 1) r.error(`${at}.batch_size`, `${who}: batch_size must be >= 1, got ${w.batch_size}`);
    else if (c.max_batch_size === 0 && w.batch_size > 1) r.error(`${at}.batch_size`, `${who}: batch_size must be 1 for a model with max_batch_size 0`);
    else if (c.max_batch_size > 0 && w.batch_size > c.max_batch_size) {
      r.error(`${at}.batch_size`, `${who}: batch_size ${w.batch_size} exceeds max_batch_size ${c.max_batch_size}`);
    }
    for (const [name, input] of Object.entries(w.inputs)) {
      const ip = `${at}.inputs.${name}`;
      if (input.data_type === 'TYPE_INVALID') r.error(ip, `${who}: input '${name}' must specify 'data_type'`);
      const sources = [input.zero_data !== undefined, input.random_data !== undefined, input.input_data_file !== undefined].filter(Boolean).length;
      if (sources === 0) r.error(ip, `${who}: input '${name}' must specify one of zero_data, random_data or input_data_file`);
    }
  });
}
