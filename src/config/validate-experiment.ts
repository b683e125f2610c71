/**
 * Checks of an `experiment:` block that need no other model (docs/experiments.md): weights,
 * versions, sticky, mirror, and the settings an experiment cannot have because it runs nothing
 * itself. Whether the variants exist and share one interface is checked when the experiment is
 * compiled against them (src/experiment).
 */
import type { ConfigReporter } from './config-reporter.js';

/** An HTTP header name (RFC 9110 token); gRPC metadata keys are a subset. */
const HEADER = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VERSION = /^[1-9][0-9]*$/;

/** Settings of a model that runs its own backend or schedule, meaningless on an experiment. */
const NOT_ON_EXPERIMENT = ['backend', 'ensemble_scheduling', 'dynamic_batching', 'sequence_batching'] as const;

export function validateExperiment(r: ConfigReporter): void {
  const c = r.config;
  const e = c.experiment;
  if (!e) return;
  const runs = "an experiment runs no backend or scheduler of its own: its variants do; set this on the variants' configs";
  for (const k of NOT_ON_EXPERIMENT) if (c[k] !== undefined && c[k] !== '') r.error(k, `${k}: ${runs}`);
  if (c.platform !== '' && c.platform !== 'experiment') r.error('platform', `platform: ${runs}`);
  if (c.instance_group.length > 0) r.error('instance_group', `instance_group: ${runs}`);
  if (c.model_warmup.length > 0) r.error('model_warmup', `model_warmup: ${runs}`);
  if (c.response_cache?.enable) r.error('response_cache', `response_cache: ${runs}`);

  if (e.variants.length === 0) r.error('experiment', 'experiment: list at least one variant under variants');
  const seen = new Map<string, number>();
  let total = 0;
  e.variants.forEach((v, i) => {
    const at = `experiment.variants[${i}]`;
    if (!v.model) {
      r.error(at, `${at}: must name a model ({ model: NAME, weight: N })`);
      return;
    }
    if (v.model === c.name) r.error(`${at}.model`, `${at}: an experiment cannot route to itself`);
    if (v.version !== undefined && !VERSION.test(v.version)) r.error(`${at}.version`, `${at}: version must be a version number such as "2", got '${v.version}'`);
    if (!Number.isFinite(v.weight) || v.weight < 0) r.error(`${at}.weight`, `${at}: weight must be a number >= 0, got ${v.weight}`);
    else total += v.weight;
    const key = `${v.model}\0${v.version ?? ''}`;
    const first = seen.get(key);
    if (first !== undefined) r.error(`${at}.model`, `${at}: model '${v.model}'${v.version ? ` version ${v.version}` : ''} is already variant ${first}; list each variant once`);
    else seen.set(key, i);
  });
  if (e.variants.length > 0 && total <= 0) r.error('experiment.variants', 'experiment.variants: the weights must add up to more than 0 (a variant with weight 0 gets no traffic)');

  if (e.sticky) {
    const { header, parameter } = e.sticky;
    if ((header === undefined) === (parameter === undefined)) {
      r.error('experiment.sticky', 'experiment.sticky: give exactly one of header (sticky: { header: x-user }) or parameter (sticky: { parameter: user })');
    } else if (header !== undefined && !HEADER.test(header)) {
      r.error('experiment.sticky.header', `experiment.sticky.header: '${header}' is not a header name (letters, digits and !#$%&'*+.^_\`|~-)`);
    } else if (parameter === '') {
      r.error('experiment.sticky.parameter', 'experiment.sticky.parameter: name a request parameter');
    }
  }

  const m = e.mirror;
  if (m) {
    if (!m.model) r.error('experiment.mirror', 'experiment.mirror: must name a model ({ model: NAME, percent: N })');
    else if (m.model === c.name) r.error('experiment.mirror.model', 'experiment.mirror: an experiment cannot mirror to itself');
    if (m.version !== undefined && !VERSION.test(m.version)) r.error('experiment.mirror.version', `experiment.mirror: version must be a version number such as "2", got '${m.version}'`);
    if (!(m.percent >= 0 && m.percent <= 100)) r.error('experiment.mirror.percent', `experiment.mirror: percent must be between 0 and 100, got ${m.percent}`);
    if (m.max_inflight_requests < 1) r.error('experiment.mirror.max_inflight_requests', `experiment.mirror: max_inflight_requests must be >= 1, got ${m.max_inflight_requests}`);
  }
}
