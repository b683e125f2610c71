/**
 * Triton's per-model response cache metrics (docs/user_guide/metrics.md, "Response Cache"):
 * counts and cumulative durations in microseconds of hits and misses, and their summaries when
 * summary latencies are on. Registered at the first cache record, so a server without a cache (or
 * whose models do not use it) exports none of them, as tritonserver without --cache-config.
 */
import { Counter, Summary, type Registry } from 'prom-client';
import type { RequestRecord } from '../model/index.js';
import type { MetricsConfig } from './metrics-config.js';

type CacheRecorder = (r: RequestRecord & { cache: { hit: boolean; ns: number } }) => void;

export function createCacheRecorder(registry: Registry, config: MetricsConfig): CacheRecorder {
  let record: CacheRecorder | undefined;
  return (r) => {
    record ??= register(registry, config);
    record(r);
  };
}

function register(registry: Registry, config: MetricsConfig): CacheRecorder {
  const labelNames = ['model', 'version'];
  const registers = [registry];
  const hits = new Counter({ name: 'nv_cache_num_hits_per_model', help: 'Number of response cache hits per model', labelNames, registers });
  const misses = new Counter({ name: 'nv_cache_num_misses_per_model', help: 'Number of response cache misses per model', labelNames, registers });
  const hitUs = new Counter({ name: 'nv_cache_hit_duration_per_model', help: 'Cumulative time requests spend retrieving a cached response per model on cache hits (microseconds)', labelNames, registers });
  const missUs = new Counter({ name: 'nv_cache_miss_duration_per_model', help: 'Cumulative time requests spend looking up and inserting responses into the cache on a cache miss (microseconds)', labelNames, registers });
  const summary = (name: string, help: string) => new Summary({
    name, help, labelNames, registers, percentiles: config.summaryQuantiles.map((q) => q.quantile),
    maxAgeSeconds: config.summaryMaxAgeSeconds, ageBuckets: 5,
  });
  const hitSummary = config.summaryLatencies ? summary('nv_cache_hit_summary_us', 'Summary of response cache hit durations per model (microseconds)') : undefined;
  const missSummary = config.summaryLatencies ? summary('nv_cache_miss_summary_us', 'Summary of response cache miss durations per model (microseconds)') : undefined;
  return (r) => {
    const l = { model: r.model, version: r.version };
    const us = r.cache.ns / 1000;
    if (r.cache.hit) {
      hits.inc(l);
      hitUs.inc(l, us);
      hitSummary?.observe(l, us);
    } else {
      misses.inc(l);
      missUs.inc(l, us);
      missSummary?.observe(l, us);
    }
  };
}
