/**
 * Scripts' custom families in the Prometheus text: each kind written from the server's store at
 * scrape time, families following the store as they come and go, replicas' pages merged; and
 * the rule that keeps scripts off the server's own names checked against every family the
 * server registers, so a new server family cannot slip past it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { aggregateMetrics, createMetrics, registerStreamMetrics } from '../../src/metrics/index.js';
import { registerCustomMetrics } from '../../src/metrics/custom-metrics.js';
import { createServer } from '../../src/server/index.js';
import { createCustomMetrics } from '../../src/server/custom-metrics.js';
import { tempRepo } from '../helpers/temp-repo.js';

function filled() {
  const store = createCustomMetrics();
  const a = store.scope('a', '1');
  const c = a.metric(a.family('jobs_total', '', 'counter'), { queue: 'say "hi"\n' }, undefined);
  const g = a.metric(a.family('depth', 'Queue depth', 'gauge'), {}, undefined);
  const h = a.metric(a.family('lat_ms', 'Latency', 'histogram'), { p: 'x' }, [1, 10]);
  a.add(c, 3);
  a.set(g, -2.5);
  a.observe(h, 25.5, 3, [1, 1, 1]);
  return { store, a };
}

test('counter, gauge and histogram families, written with their labels (escaped) and cumulative buckets', async () => {
  const { store } = filled();
  const registry = new Registry();
  registerCustomMetrics(registry, store);
  const text = await registry.metrics();
  assert.ok(text.includes('# HELP jobs_total custom metric jobs_total\n# TYPE jobs_total counter\njobs_total{model="a",version="1",queue="say \\"hi\\"\\n"} 3'), text);
  assert.ok(text.includes('# HELP depth Queue depth\n# TYPE depth gauge\ndepth{model="a",version="1"} -2.5'), text);
  assert.ok(text.includes([
    '# HELP lat_ms Latency', '# TYPE lat_ms histogram',
    'lat_ms_bucket{model="a",version="1",p="x",le="1"} 1',
    'lat_ms_bucket{model="a",version="1",p="x",le="10"} 2',
    'lat_ms_bucket{model="a",version="1",p="x",le="+Inf"} 3',
    'lat_ms_sum{model="a",version="1",p="x"} 25.5',
    'lat_ms_count{model="a",version="1",p="x"} 3',
  ].join('\n')), text);
});

test('families appear and leave with the store; the registry stops following when detached', async () => {
  const store = createCustomMetrics();
  const registry = new Registry();
  const stop = registerCustomMetrics(registry, store);
  const a = store.scope('a', '1');
  a.family('late', 'l', 'gauge');
  assert.ok((await registry.metrics()).includes('# TYPE late gauge'));
  a.close();
  assert.ok(!(await registry.metrics()).includes('late'));
  const b = store.scope('b', '1');
  b.family('again', 'l', 'gauge');
  stop();
  assert.equal(await registry.metrics(), '\n', 'nothing of the store is left');
  b.family('after', 'l', 'gauge');
  assert.equal(await registry.metrics(), '\n', 'and nothing new follows');
});

test("replicas' custom series are merged like the server's own: counters and buckets summed", async () => {
  const pages = [];
  for (let i = 0; i < 2; i++) {
    const { store } = filled();
    const registry = new Registry();
    registerCustomMetrics(registry, store);
    pages.push(await registry.getMetricsAsJSON());
  }
  const text = await aggregateMetrics(pages).metrics();
  assert.match(text, /^# TYPE lat_ms histogram$/m);
  assert.match(text, /^jobs_total\{model="a",version="1",queue="say \\"hi\\"\\n"\} 6$/m);
  assert.match(text, /^lat_ms_bucket\{model="a",version="1",p="x",le="10"\} 4$/m);
  assert.match(text, /^lat_ms_count\{model="a",version="1",p="x"\} 6$/m);
});

test("every family the server registers is nv_* or tributary_*, the prefixes kept from scripts", async () => {
  const repo = tempRepo();
  const server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit' });
  const config = { counter_latencies: 'true', summary_latencies: 'true', histogram_latencies: 'true' };
  const metrics = createMetrics(server, config, { cpu: true, intervalMs: 60_000 });
  try {
    registerStreamMetrics(metrics.registry, { figures: {} });
    const names = metrics.registry.getMetricsAsArray().map((m) => m.name);
    assert.ok(names.length > 20, names.join(', '));
    assert.deepEqual(names.filter((n) => !/^(nv|tributary)_/.test(n)), []);
  } finally {
    metrics.detach();
    await server.close();
    repo.remove();
  }
});
