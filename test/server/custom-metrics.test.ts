/**
 * The server's store of scripts' custom metrics, in process: what a family, a metric and an
 * update may be, the bounds, the sharing between models and between the scopes of a reload, and
 * what an unload removes. The script's side of it is test/backends/typescript/script-metrics.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CUSTOM_METRIC_LIMITS } from '../../src/server/custom-metric-checks.js';
import { createCustomMetrics, type CustomFamily } from '../../src/server/custom-metrics.js';
import { TributaryError } from '../../src/errors.js';

function refused(f: () => unknown, code: string, message: RegExp): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof TributaryError, String(e));
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    return true;
  });
}

const values = (f: CustomFamily | undefined) => [...(f?.series() ?? [])].map((s) => ({ labels: { ...s.labels }, value: s.value }));
const family = (store: ReturnType<typeof createCustomMetrics>, name: string) => [...store.families()].find((f) => f.name === name);

test('a family is declared once per model; a model declaring it again gets the same id', () => {
  const store = createCustomMetrics();
  const a = store.scope('a', '1');
  const id = a.family('jobs_total', 'Jobs', 'counter');
  assert.equal(a.family('jobs_total', 'Jobs', 'counter'), id);
  const m = a.metric(id, { queue: 'x' }, undefined);
  assert.equal(a.metric(id, { queue: 'x' }, undefined), m, 'the same labels are the same series');
  a.add(m, 2);
  a.add(m, 3);
  assert.deepEqual(values(family(store, 'jobs_total')), [{ labels: { model: 'a', version: '1', queue: 'x' }, value: 5 }]);
});

test('two models share a family declared alike; another kind or description is refused, naming who has it', () => {
  const store = createCustomMetrics();
  const a = store.scope('a', '1');
  const b = store.scope('b', '1');
  const fa = a.family('jobs_total', 'Jobs', 'counter');
  assert.equal(b.family('jobs_total', 'Jobs', 'counter'), fa);
  a.add(a.metric(fa, {}, undefined), 1);
  b.add(b.metric(fa, {}, undefined), 4);
  assert.deepEqual(values(family(store, 'jobs_total')).map((s) => [s.labels.model, s.value]), [['a', 1], ['b', 4]]);
  refused(() => store.scope('c', '1').family('jobs_total', 'Jobs', 'gauge'), 'TRB_SCRIPT_METRIC_INVALID',
    /^model 'c': metric family 'jobs_total' is already registered \(by model 'a', 'b'\) as a counter with description "Jobs"/);
  refused(() => a.family('jobs_total', 'Other jobs', 'counter'), 'TRB_SCRIPT_METRIC_INVALID', /already registered/);
});

test("names: Prometheus' rules, and nv_* and tributary_* stay the server's", () => {
  const a = createCustomMetrics().scope('a', '1');
  refused(() => a.family('nv_inference_count', 'x', 'counter'), 'TRB_SCRIPT_METRIC_INVALID', /starts with 'nv_', which the server keeps for its own families/);
  refused(() => a.family('tributary_bls_call_success', 'x', 'counter'), 'TRB_SCRIPT_METRIC_INVALID', /starts with 'tributary_'/);
  for (const bad of ['', '9lives', 'a-b', 'a b', 'a:b', 'é']) refused(() => a.family(bad, 'x', 'gauge'), 'TRB_SCRIPT_METRIC_INVALID', /is not a Prometheus metric name/);
  refused(() => a.family(42, 'x', 'gauge'), 'TRB_SCRIPT_METRIC_INVALID', /42 is not a Prometheus metric name/);
  refused(() => a.family('x'.repeat(CUSTOM_METRIC_LIMITS.nameChars + 1), 'x', 'gauge'), 'TRB_SCRIPT_METRIC_LIMIT', /name of 129 characters: at most 128/);
  assert.equal(typeof a.family('x'.repeat(CUSTOM_METRIC_LIMITS.nameChars), 'x', 'gauge'), 'number');
  refused(() => a.family('ok', 7, 'gauge'), 'TRB_SCRIPT_METRIC_INVALID', /description must be a string/);
  refused(() => a.family('ok', 'd'.repeat(CUSTOM_METRIC_LIMITS.descriptionChars + 1), 'gauge'), 'TRB_SCRIPT_METRIC_LIMIT', /description of 1025 characters: at most 1024/);
  refused(() => a.family('ok', 'x', 'summary'), 'TRB_SCRIPT_METRIC_INVALID', /kind must be "counter", "gauge" or "histogram", got "summary"/);
});

test("a histogram's _bucket, _sum and _count names are its own", () => {
  const a = createCustomMetrics().scope('a', '1');
  a.family('lat', 'l', 'histogram');
  for (const s of ['_bucket', '_sum', '_count']) refused(() => a.family(`lat${s}`, 'c', 'counter'), 'TRB_SCRIPT_METRIC_INVALID', /would collide with family 'lat'/);
  a.family('size_count', 'c', 'counter');
  refused(() => a.family('size', 'h', 'histogram'), 'TRB_SCRIPT_METRIC_INVALID', /'size' would collide with family 'size_count'/);
  assert.equal(typeof a.family('size', 'g', 'gauge'), 'number', 'only a histogram shows under those names');
});

test('labels: names, values and the ones the server keeps', () => {
  const a = createCustomMetrics().scope('a', '1');
  const f = a.family('jobs', 'j', 'gauge');
  for (const name of ['model', 'version', 'le', 'quantile']) refused(() => a.metric(f, { [name]: 'x' }, undefined), 'TRB_SCRIPT_METRIC_INVALID', new RegExp(`label '${name}' is the server's`));
  for (const name of ['9x', 'a-b', '__x', '__proto__']) refused(() => a.metric(f, JSON.parse(`{"${name}":"v"}`), undefined), 'TRB_SCRIPT_METRIC_INVALID', /is not a Prometheus label name/);
  refused(() => a.metric(f, { n: 1 }, undefined), 'TRB_SCRIPT_METRIC_INVALID', /label 'n' must have a string value, got number/);
  refused(() => a.metric(f, ['x'], undefined), 'TRB_SCRIPT_METRIC_INVALID', /labels must be an object/);
  refused(() => a.metric(f, { v: 'x'.repeat(CUSTOM_METRIC_LIMITS.labelValueChars + 1) }, undefined), 'TRB_SCRIPT_METRIC_LIMIT', /a value of 257 characters: at most 256/);
  const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, 'v']));
  assert.equal(typeof a.metric(f, many(CUSTOM_METRIC_LIMITS.labels), undefined), 'number');
  refused(() => a.metric(f, many(CUSTOM_METRIC_LIMITS.labels + 1), undefined), 'TRB_SCRIPT_METRIC_LIMIT', /17 labels on one metric: at most 16/);
  refused(() => a.metric(999, {}, undefined), 'TRB_SCRIPT_METRIC_INVALID', /no metric family 999 registered by this model/);
});

test('buckets: histograms need them, increasing and finite; counters and gauges take none', () => {
  const a = createCustomMetrics().scope('a', '1');
  const h = a.family('lat', 'l', 'histogram');
  const c = a.family('n', 'n', 'counter');
  refused(() => a.metric(h, {}, undefined), 'TRB_SCRIPT_METRIC_INVALID', /Bucket boundaries not found in Metric args\./);
  refused(() => a.metric(c, {}, [1]), 'TRB_SCRIPT_METRIC_INVALID', /Unexpected args found in counter Metric constructor\./);
  for (const bad of [[], [2, 1], [1, 1], [1, Infinity], [1, NaN], ['1']]) refused(() => a.metric(h, {}, bad), 'TRB_SCRIPT_METRIC_INVALID', /buckets must be/);
  refused(() => a.metric(h, {}, Array.from({ length: 65 }, (_, i) => i)), 'TRB_SCRIPT_METRIC_LIMIT', /65 buckets: at most 64/);
  const id = a.metric(h, { p: 'x' }, [1, 2]);
  assert.equal(a.metric(h, { p: 'x' }, [1, 2]), id);
  refused(() => a.metric(h, { p: 'x' }, [1, 3]), 'TRB_SCRIPT_METRIC_INVALID', /already has buckets \[1, 2\]/);
});

test(`at most ${CUSTOM_METRIC_LIMITS.familiesPerModel} families per model version, and ${CUSTOM_METRIC_LIMITS.seriesPerFamily} label sets per family`, () => {
  const store = createCustomMetrics();
  const a = store.scope('a', '1');
  for (let i = 0; i < CUSTOM_METRIC_LIMITS.familiesPerModel; i++) a.family(`f${i}`, 'f', 'gauge');
  refused(() => a.family('one_more', 'f', 'gauge'), 'TRB_SCRIPT_METRIC_LIMIT', /metric family 'one_more' would be this model's 65th: at most 64/);
  assert.equal(typeof a.family('f0', 'f', 'gauge'), 'number', 'one it has is no new one');
  assert.equal(typeof store.scope('a', '2').family('one_more', 'f', 'gauge'), 'number', 'another version counts its own');
  const f = a.family('f1', 'f', 'gauge');
  for (let i = 0; i < CUSTOM_METRIC_LIMITS.seriesPerFamily; i++) a.metric(f, { i: String(i) }, undefined);
  refused(() => a.metric(f, { i: 'new' }, undefined), 'TRB_SCRIPT_METRIC_LIMIT', /a label set past this model's 1024 in the family: at most 1024/);
  assert.equal(typeof a.metric(f, { i: '7' }, undefined), 'number', 'one it has is no new one');
});

test('updates: counters only grow, gauges move and set, histograms count per bucket; bad or foreign ones are dropped', () => {
  const store = createCustomMetrics();
  const a = store.scope('a', '1');
  const b = store.scope('b', '1');
  const c = a.metric(a.family('c', 'c', 'counter'), {}, undefined);
  const g = a.metric(a.family('g', 'g', 'gauge'), {}, undefined);
  const h = a.metric(a.family('h', 'h', 'histogram'), {}, [1, 2]);
  a.add(c, 2);
  a.add(c, -1);
  a.add(c, NaN);
  a.set(c, 100);
  b.add(c, 50); // another model's script cannot touch a's series
  a.set(g, 10);
  a.add(g, -3);
  a.add(g, Infinity);
  a.observe(h, 4.5, 3, [1, 1, 1]);
  a.observe(h, 1, 2, [1, 0, 0]); // counts that do not add up to `count`
  a.observe(h, 1, 1, [1, 0]); // the wrong number of buckets
  a.observe(g, 1, 1, [1, 0, 0]);
  assert.deepEqual(values(family(store, 'c')), [{ labels: { model: 'a', version: '1' }, value: 2 }]);
  assert.deepEqual(values(family(store, 'g')), [{ labels: { model: 'a', version: '1' }, value: 7 }]);
  const [hs] = [...family(store, 'h')!.series()];
  assert.deepEqual([Array.from(hs!.perBucket!), hs!.sum, hs!.count], [[1, 1, 1], 4.5, 3]);
});

test("a reload's two scopes share the version's series; the last one closed takes them, and families no model uses", () => {
  const store = createCustomMetrics();
  const changes: string[] = [];
  store.watch((f, present) => changes.push(`${present ? '+' : '-'}${f.name}`));
  const old = store.scope('a', '1');
  const c = old.metric(old.family('jobs', 'j', 'counter'), {}, undefined);
  old.add(c, 5);
  const other = store.scope('b', '1');
  other.family('jobs', 'j', 'counter');
  const reloaded = store.scope('a', '1');
  const c2 = reloaded.metric(reloaded.family('jobs', 'j', 'counter'), {}, undefined);
  assert.equal(c2, c, 'the new version of the model finds the old series');
  old.close();
  reloaded.add(c2, 1);
  assert.deepEqual(values(family(store, 'jobs')), [{ labels: { model: 'a', version: '1' }, value: 6 }], 'the counter runs on across the reload');
  reloaded.close();
  assert.deepEqual(values(family(store, 'jobs')), [], "a's series left with its last scope");
  assert.ok(family(store, 'jobs'), 'b still declares the family');
  other.close();
  assert.equal(family(store, 'jobs'), undefined);
  assert.deepEqual(changes, ['+jobs', '-jobs']);
  refused(() => old.family('x', 'x', 'gauge'), 'TRB_SCRIPT_METRIC_INVALID', /the model is unloaded/);
  reloaded.add(c2, 1); // a late update from a closing isolate is dropped, not an error
});
