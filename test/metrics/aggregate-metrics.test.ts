/**
 * The metrics page of `serve --replicas`: real prom-client registries, one per "replica", merged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge, Histogram, Registry, Summary } from 'prom-client';
import { aggregateMetrics } from '../../src/metrics/index.js';

function replica(requests: number, latencies: number[], loadSecs: number): Registry {
  const registry = new Registry();
  const registers = [registry];
  new Counter({ name: 'nv_inference_request_success', help: 'ok', labelNames: ['model', 'version'], registers })
    .inc({ model: 'm', version: '1' }, requests);
  const h = new Histogram({ name: 'lat_us', help: 'h', labelNames: ['model'], buckets: [10, 100], registers });
  const s = new Summary({ name: 'q_us', help: 's', labelNames: ['model'], percentiles: [0.5], registers });
  for (const v of latencies) {
    h.observe({ model: 'm' }, v);
    s.observe({ model: 'm' }, v);
  }
  new Gauge({ name: 'nv_model_load_duration_secs', help: 'g', labelNames: ['model', 'version'], registers }).set({ model: 'm', version: '1' }, loadSecs);
  new Gauge({ name: 'pending', help: 'g', labelNames: ['model'], registers }).set({ model: 'm' }, 2);
  return registry;
}

test('counters, gauges and histogram buckets with equal labels are summed; quantiles and load time take the max', async () => {
  const a = replica(3, [5, 50], 0.5);
  const b = replica(4, [500], 1.5);
  const text = await aggregateMetrics([await a.getMetricsAsJSON(), await b.getMetricsAsJSON()]).metrics();
  assert.match(text, /^nv_inference_request_success\{model="m",version="1"\} 7$/m);
  assert.match(text, /^lat_us_bucket\{le="10",model="m"\} 1$/m);
  assert.match(text, /^lat_us_bucket\{le="100",model="m"\} 2$/m);
  assert.match(text, /^lat_us_bucket\{le="\+Inf",model="m"\} 3$/m);
  assert.match(text, /^lat_us_sum\{model="m"\} 555$/m);
  assert.match(text, /^lat_us_count\{model="m"\} 3$/m);
  assert.match(text, /^q_us_count\{model="m"\} 3$/m);
  assert.match(text, /^q_us\{quantile="0.5",model="m"\} 500$/m);
  assert.match(text, /^nv_model_load_duration_secs\{model="m",version="1"\} 1.5$/m);
  assert.match(text, /^pending\{model="m"\} 4$/m);
});

test('a family only one process has passes through; label sets that differ stay apart', async () => {
  const a = new Registry();
  new Counter({ name: 'c', help: 'c', labelNames: ['model'], registers: [a] }).inc({ model: 'x' }, 1);
  const b = new Registry();
  new Counter({ name: 'c', help: 'c', labelNames: ['model'], registers: [b] }).inc({ model: 'y' }, 2);
  new Gauge({ name: 'only_b', help: 'g', registers: [b] }).set(9);
  const text = await aggregateMetrics([await a.getMetricsAsJSON(), await b.getMetricsAsJSON()]).metrics();
  assert.match(text, /^c\{model="x"\} 1$/m);
  assert.match(text, /^c\{model="y"\} 2$/m);
  assert.match(text, /^only_b 9$/m);
});
