/**
 * Scripts' custom metrics end to end: real servers, real isolates, the real metrics endpoint.
 * A counter, a gauge and a histogram declared by a script show on /metrics with the model and
 * version as labels; two models share a family; refused declarations and updates throw in the
 * script with Triton's words; an unloaded model's series leave; and a tight loop of updates
 * reaches the host in one batch, not one call per update.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTypeScriptBackend } from '../../../backends/typescript/index.js';
import type { BackendFactory, CustomMetricsScope } from '../../../src/backend/index.js';
import { startMetricsServer } from '../../../src/metrics/index.js';
import { createServer, inferOnce, type LocalServer } from '../../../src/server/index.js';
import { createTensor } from '../../../src/tensor/index.js';
import { expectError } from '../../helpers/expect-error.js';
import { quietLog } from '../../helpers/quiet-log.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { scriptRepo, type ScriptModel } from './script-repo.js';

quietLog([/execute\(\) failed/]);

const IO = [
  'max_batch_size: 0',
  'input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  'output [ { name: "N_OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]',
];

/** Counts N, sets the gauge to N, observes N; every family declared at module level. */
const METERED: ScriptModel = {
  config: [...IO, 'instance_group [ { count: 2 kind: KIND_CPU } ]'],
  code: `import { InferenceResponse, MetricFamily, Tensor, type Request } from 'tributary/bls';
const units = new MetricFamily({ name: 'app_units_total', description: 'Units the script counted', kind: 'counter' });
const last = new MetricFamily({ name: 'app_last_n', description: 'The last N seen', kind: 'gauge' });
const sizes = new MetricFamily({ name: 'app_n_size', description: 'N per request', kind: 'histogram' });
const counted = units.metric({ labels: { path: 'main' } });
const gauge = last.metric();
const hist = sizes.metric({ labels: { path: 'main' }, buckets: [1, 5, 10] });
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const n = (r.input('N').data as Int32Array)[0]!;
      for (let i = 0; i < n; i++) counted.increment(1);
      gauge.set(n);
      hist.observe(n);
      return new InferenceResponse({ outputs: [new Tensor('N_OUT', 'INT32', [1], [n])] });
    });
  }
}
`,
};

/** Declares the same counter family as 'metered', and runs the case a request names. */
const PROBE: ScriptModel = {
  config: IO,
  code: `import { InferenceResponse, MetricFamily, Tensor, type Request } from 'tributary/bls';
const units = new MetricFamily({ name: 'app_units_total', description: 'Units the script counted', kind: 'counter' });
const counter = units.metric({ labels: { path: 'probe' } });
const gauge = new MetricFamily({ name: 'probe_gauge', description: 'g', kind: 'gauge' }).metric();
const CASES: Record<string, () => unknown> = {
  count: () => counter.increment(2),
  negative: () => counter.increment(-1),
  setCounter: () => counter.set(1),
  observeGauge: () => gauge.observe(1),
  notANumber: () => gauge.set(NaN),
  nvName: () => new MetricFamily({ name: 'nv_inference_count', description: 'x', kind: 'counter' }),
  ourName: () => new MetricFamily({ name: 'tributary_anything', description: 'x', kind: 'counter' }),
  badName: () => new MetricFamily({ name: '9lives', description: 'x', kind: 'counter' }),
  otherKind: () => new MetricFamily({ name: 'app_units_total', description: 'Units the script counted', kind: 'gauge' }),
  modelLabel: () => units.metric({ labels: { model: 'other' } }),
  noBuckets: () => new MetricFamily({ name: 'probe_h', description: 'h', kind: 'histogram' }).metric(),
  counterBuckets: () => units.metric({ buckets: [1] }),
  suffix: () => { new MetricFamily({ name: 'probe_lat', description: 'l', kind: 'histogram' }); new MetricFamily({ name: 'probe_lat_count', description: 'c', kind: 'counter' }); },
  families: () => { for (let i = 0; ; i++) new MetricFamily({ name: 'probe_f' + i, description: 'f', kind: 'gauge' }); },
  series: () => { const f = new MetricFamily({ name: 'probe_s', description: 's', kind: 'gauge' }); for (let i = 0; ; i++) f.metric({ labels: { i: String(i) } }); },
};
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      CASES[String(r.parameters.case)]!();
      return new InferenceResponse({ outputs: [new Tensor('N_OUT', 'INT32', [1], [0])] });
    });
  }
}
`,
};

const n = (v: number) => [createTensor('N', 'INT32', [1], [v])];

describe('custom metrics on /metrics', () => {
  let repo: TempRepo;
  let server: LocalServer;
  let metrics: Awaited<ReturnType<typeof startMetricsServer>>;
  const scrape = async () => (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();
  /** The sample lines of `name` (exactly: not a longer name it prefixes). */
  const lines = (text: string, name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  /**
   * Updates reach the host without the script waiting for it (a fire-and-forget callback), so a
   * scrape right after the response may in principle precede them: poll, within a bound.
   */
  async function scrapeUntil(ok: (text: string) => boolean): Promise<string> {
    const until = Date.now() + 5000;
    for (;;) {
      const text = await scrape();
      if (ok(text) || Date.now() > until) return text;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  before(async () => {
    repo = scriptRepo({ metered: METERED, probe: PROBE });
    server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['metered', 'probe'] });
    metrics = await startMetricsServer(server, { port: 0, host: '127.0.0.1', cpu: false });
  });
  after(async () => {
    await metrics.close();
    await server.close();
    repo.remove();
  });

  test("a script's counter, gauge and histogram show with their values, labelled with model and version", async () => {
    for (const v of [3, 3, 7]) await inferOnce(server, { model: 'metered', inputs: n(v) });
    const want = 'app_units_total{model="metered",version="1",path="main"} 13';
    const base = 'model="metered",version="1",path="main"';
    // Each request's updates arrive in the order the script made them, but the two instances'
    // streams interleave: wait for the last update of all three requests, not only the counter.
    const text = await scrapeUntil((t) => t.includes(want) && t.includes(`app_n_size_count{${base}} 3`));
    assert.ok(text.includes('# HELP app_units_total Units the script counted\n# TYPE app_units_total counter'), text);
    assert.deepEqual(lines(text, 'app_units_total').filter((l) => l.includes('"metered"')), [want]);
    assert.deepEqual(lines(text, 'app_last_n'), ['app_last_n{model="metered",version="1"} 7']);
    assert.ok(text.includes('# TYPE app_n_size histogram'), text);
    assert.deepEqual(lines(text, 'app_n_size_bucket'), [
      `app_n_size_bucket{${base},le="1"} 0`,
      `app_n_size_bucket{${base},le="5"} 2`,
      `app_n_size_bucket{${base},le="10"} 3`,
      `app_n_size_bucket{${base},le="+Inf"} 3`,
    ]);
    assert.deepEqual(lines(text, 'app_n_size_sum'), [`app_n_size_sum{${base}} 13`]);
    assert.deepEqual(lines(text, 'app_n_size_count'), [`app_n_size_count{${base}} 3`]);
  });

  test('two models share a family declared alike; each series has its own model label', async () => {
    await inferOnce(server, { model: 'probe', inputs: n(0), parameters: { case: 'count' } });
    const text = await scrapeUntil((t) => t.includes('path="probe"} 2'));
    assert.equal(text.split('\n').filter((l) => l === '# TYPE app_units_total counter').length, 1, 'one family');
    assert.deepEqual(lines(text, 'app_units_total').filter((l) => l.includes('"probe"')), ['app_units_total{model="probe",version="1",path="probe"} 2']);
  });

  const refused: [string, string, string, RegExp][] = [
    ['negative', 'TRB_SCRIPT_METRIC_INVALID', 'INVALID_ARG', /TRITONSERVER_METRIC_KIND_COUNTER can only be incremented monotonically by non-negative values\./],
    ['setCounter', 'TRB_SCRIPT_METRIC_UNSUPPORTED', 'UNSUPPORTED', /TRITONSERVER_METRIC_KIND_COUNTER does not support Set/],
    ['observeGauge', 'TRB_SCRIPT_METRIC_UNSUPPORTED', 'UNSUPPORTED', /TRITONSERVER_METRIC_KIND_GAUGE does not support Observe/],
    ['notANumber', 'TRB_SCRIPT_METRIC_INVALID', 'INVALID_ARG', /must be a finite number, got NaN/],
    ['nvName', 'TRB_SCRIPT_METRIC_INVALID', 'INVALID_ARG', /'nv_inference_count' starts with 'nv_', which the server keeps for its own families/],
    ['ourName', 'TRB_SCRIPT_METRIC_INVALID', 'INVALID_ARG', /starts with 'tributary_'/],
    ['badName', 'TRB_SCRIPT_METRIC_INVALID', 'INVALID_ARG', /"9lives" is not a Prometheus metric name/],
    ['otherKind', 'TRB_SCRIPT_METRIC_INVALID', 'INVALID_ARG', /'app_units_total' is already registered \(by model 'metered', 'probe'\) as a counter/],
    ['modelLabel', 'TRB_SCRIPT_METRIC_INVALID', 'INVALID_ARG', /label 'model' is the server's/],
    ['noBuckets', 'TRB_SCRIPT_METRIC_INVALID', 'INVALID_ARG', /execute\(\) failed: Bucket boundaries not found in Metric args\.; histogram family 'probe_h' needs buckets/],
    ['counterBuckets', 'TRB_SCRIPT_METRIC_INVALID', 'INVALID_ARG', /execute\(\) failed: Unexpected args found in counter Metric constructor\.; only a histogram/],
    ['suffix', 'TRB_SCRIPT_METRIC_INVALID', 'INVALID_ARG', /'probe_lat_count' would collide with family 'probe_lat'/],
    ['series', 'TRB_SCRIPT_METRIC_LIMIT', 'INVALID_ARG', /metric family 'probe_s': a label set past this model's 1024 in the family: at most 1024/],
    // Run last: the families the cases before made count too.
    ['families', 'TRB_SCRIPT_METRIC_LIMIT', 'INVALID_ARG', /metric family 'probe_f\d+' would be this model's 65th: at most 64/],
  ];
  for (const [which, code, kind, message] of refused) {
    test(`refused in the script, where it is made: ${which} (${code})`, async () => {
      const e = await expectError(inferOnce(server, { model: 'probe', inputs: n(0), parameters: { case: which } }));
      assert.equal(e.code, code, e.message);
      assert.equal(e.kind, kind);
      assert.match(e.message, message);
      assert.match(e.message, /\(at 1\/model\.ts:\d+:\d+\)$/, 'the error points at the script line');
    });
  }

  test("an unloaded model's series leave /metrics; a family goes with its last model", async () => {
    await server.unloadModel('probe');
    let text = await scrape();
    assert.deepEqual(lines(text, 'app_units_total').filter((l) => l.includes('"probe"')), []);
    assert.equal(lines(text, 'app_units_total').length, 1, 'metered\'s series stays');
    assert.ok(!text.includes('probe_gauge'), 'a family only probe declared is gone');
    await server.unloadModel('metered');
    text = await scrape();
    assert.ok(!text.includes('app_units_total') && !text.includes('app_n_size'), text);
  });
});

describe('updates are batched in the sandbox', () => {
  /** The real typescript backend, its model's metric scope watched: how often the host applies an update. */
  function counting(adds: number[]): BackendFactory {
    const real = createTypeScriptBackend();
    return {
      ...real,
      load: (config, ctx) => real.load(config, {
        ...ctx,
        host: {
          ...ctx.host,
          customMetrics: (model, version) => {
            const scope = ctx.host.customMetrics!(model, version);
            const watched: CustomMetricsScope = { ...scope, add: (id, delta) => { adds.push(delta); scope.add(id, delta); } };
            return watched;
          },
        },
      }),
    };
  }

  test('a loop of 100000 increments in one execute() reaches the host as one update', async () => {
    const adds: number[] = [];
    const repo = scriptRepo({ metered: METERED });
    const server = await createServer({ modelRepository: repo.dir, backends: [counting(adds)] });
    const metrics = await startMetricsServer(server, { port: 0, host: '127.0.0.1', cpu: false });
    try {
      await inferOnce(server, { model: 'metered', inputs: n(100_000) });
      const until = Date.now() + 5000;
      while (adds.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(adds, [100_000], 'one host update carrying the sum');
      const text = await (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();
      assert.ok(text.includes('app_units_total{model="metered",version="1",path="main"} 100000'), text);
    } finally {
      await metrics.close();
      await server.close();
      repo.remove();
    }
  });
});
