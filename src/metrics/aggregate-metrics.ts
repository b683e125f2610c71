/**
 * One metrics page for the replicas of `serve --replicas`: each process's registry (as
 * `getMetricsAsJSON()` gives it) merged into one. Samples with the same name and label set are
 * summed (counters, gauges, histogram buckets, summary counts and sums), so rates and histogram
 * quantiles computed from the page are those of the whole server. Two exceptions, where a sum
 * would be a false figure: a summary's quantiles and the load-duration gauge take the highest
 * replica's value (quantiles of different processes cannot be combined; the max is an upper bound).
 */
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/** Gauges whose replicas' values are the same thing measured N times, not N shares of a whole. */
const MAX_OF_REPLICAS: ReadonlySet<string> = new Set(['nv_model_load_duration_secs']);

function labelKey(labels: Record<string, string | number | undefined>): string {
  return Object.keys(labels).sort().map((k) => `${k}=${String(labels[k])}`).join(',');
}

/** prom-client's histogram and summary samples carry their own name (_bucket, _sum, _count). */
function sampleName(metric: string, v: MetricValue<string>): string {
  return 'metricName' in v && typeof v.metricName === 'string' ? v.metricName : metric;
}

/** prom-client declares `type` as a numeric enum; at run time it is the Prometheus type name. */
function isSummary(m: { type: unknown }): boolean {
  return String(m.type) === 'summary';
}

export function aggregateMetrics(perProcess: readonly MetricsJson[]): Registry {
  const merged = new Map<string, { metric: MetricObjectWithValues<MetricValue<string>>; samples: Map<string, MetricValue<string>> }>();
  for (const metrics of perProcess) {
    for (const m of metrics) {
      let entry = merged.get(m.name);
      if (!entry) {
        entry = { metric: m, samples: new Map() };
        merged.set(m.name, entry);
      }
      for (const v of m.values) {
        const key = `${sampleName(m.name, v)}{${labelKey(v.labels)}}`;
        const prev = entry.samples.get(key);
        if (!prev) {
          entry.samples.set(key, { ...v, labels: { ...v.labels } });
          continue;
        }
        const max = MAX_OF_REPLICAS.has(m.name) || (isSummary(m) && v.labels.quantile !== undefined);
        prev.value = max ? Math.max(prev.value, v.value) : prev.value + v.value;
      }
    }
  }
  // Already merged: 'first' makes prom-client's aggregate a plain conversion into a Registry.
  const one: MetricsJson = [...merged.values()].map(({ metric, samples }) => ({
    ...metric, aggregator: 'first', values: [...samples.values()],
  }));
  return AggregatorRegistry.aggregate([one]);
}
