/**
 * What a script's metric family and metric may be: Prometheus' naming rules, the names the server
 * keeps for itself, and bounds on everything a script could grow without end.
 */
import { Errors } from '../errors.js';

/**
 * Bounds per model version. 64 families and 1024 label sets per family are far past what a
 * dashboard of one model shows (Triton's own per-model families are about 20, one series each);
 * a label set per request or per user is the usual runaway, and these stop it at load-test
 * scale instead of at the scraper's memory.
 */
export const CUSTOM_METRIC_LIMITS = {
  familiesPerModel: 64,
  seriesPerFamily: 1024,
  labels: 16,
  nameChars: 128,
  labelValueChars: 256,
  descriptionChars: 1024,
  buckets: 64,
} as const;

const NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Every family the server exports is nv_* (Triton's names) or tributary_* (ours); keeping both
 * prefixes away from scripts keeps every present and future server family out of their reach.
 */
const RESERVED_PREFIXES = ['nv_', 'tributary_'];

/**
 * model and version are the server's (every series carries them); le and quantile are
 * Prometheus' own for histogram buckets and summary quantiles.
 */
const RESERVED_LABELS: ReadonlySet<string> = new Set(['model', 'version', 'le', 'quantile']);

export function checkMetricName(model: string, name: unknown): asserts name is string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw Errors.scriptMetricInvalid(model, `metric family name ${JSON.stringify(name) ?? String(name)} is not a Prometheus metric name (letters, digits and _, not starting with a digit)`);
  }
  if (name.length > CUSTOM_METRIC_LIMITS.nameChars) throw Errors.scriptMetricLimit(model, `metric family name of ${name.length} characters`, CUSTOM_METRIC_LIMITS.nameChars);
  const prefix = RESERVED_PREFIXES.find((p) => name.startsWith(p));
  if (prefix) throw Errors.scriptMetricInvalid(model, `metric family name '${name}' starts with '${prefix}', which the server keeps for its own families; choose another prefix`);
}

/** The script's labels, checked, as a fresh object. */
export function checkLabels(model: string, family: string, labels: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (labels === undefined || labels === null) return out;
  if (typeof labels !== 'object' || Array.isArray(labels)) {
    throw Errors.scriptMetricInvalid(model, `metric family '${family}': labels must be an object of label name to string value`);
  }
  const names = Object.keys(labels);
  if (names.length > CUSTOM_METRIC_LIMITS.labels) throw Errors.scriptMetricLimit(model, `metric family '${family}': ${names.length} labels on one metric`, CUSTOM_METRIC_LIMITS.labels);
  for (const name of names) {
    const value: unknown = (labels as Record<string, unknown>)[name];
    if (!NAME.test(name) || name.startsWith('__') || name.length > CUSTOM_METRIC_LIMITS.nameChars) {
      throw Errors.scriptMetricInvalid(model, `metric family '${family}': label name ${JSON.stringify(name.slice(0, CUSTOM_METRIC_LIMITS.nameChars))} is not a Prometheus label name (letters, digits and _, not starting with a digit or __, at most ${CUSTOM_METRIC_LIMITS.nameChars} characters)`);
    }
    if (RESERVED_LABELS.has(name)) {
      throw Errors.scriptMetricInvalid(model, `metric family '${family}': label '${name}' is the server's (every series has model and version; le and quantile are Prometheus' own); choose another label name`);
    }
    if (typeof value !== 'string') throw Errors.scriptMetricInvalid(model, `metric family '${family}': label '${name}' must have a string value, got ${typeof value}`);
    if (value.length > CUSTOM_METRIC_LIMITS.labelValueChars) {
      throw Errors.scriptMetricLimit(model, `metric family '${family}': label '${name}' has a value of ${value.length} characters`, CUSTOM_METRIC_LIMITS.labelValueChars);
    }
    out[name] = value; // never __proto__: names starting with __ are refused above
  }
  return out;
}

export function checkBuckets(model: string, family: string, buckets: unknown): number[] {
  if (!Array.isArray(buckets) || buckets.length === 0) {
    throw Errors.scriptMetricInvalid(model, `metric family '${family}': buckets must be a non-empty array of increasing upper bounds`);
  }
  if (buckets.length > CUSTOM_METRIC_LIMITS.buckets) throw Errors.scriptMetricLimit(model, `metric family '${family}': ${buckets.length} buckets`, CUSTOM_METRIC_LIMITS.buckets);
  const out: number[] = [];
  for (const b of buckets as unknown[]) {
    if (typeof b !== 'number' || !Number.isFinite(b) || (out.length > 0 && b <= out[out.length - 1]!)) {
      throw Errors.scriptMetricInvalid(model, `metric family '${family}': buckets must be finite numbers in increasing order (the +Inf bucket is added), got [${buckets.map(String).join(', ')}]`);
    }
    out.push(b);
  }
  return out;
}
