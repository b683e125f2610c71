import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startMetricsServer } from '../../src/metrics/index.js';
import { parseMetricsConfig } from '../../src/metrics/metrics-config.js';
import { createFakeServer } from '../frontend/http/fake-server.js';
import type { ModelListener, RequestRecord } from '../../src/model/statistics.js';

function record(over: Partial<RequestRecord>): RequestRecord {
  return {
    model: 'm', version: '1', success: true, batchSize: 1, requestNs: 5000, queueNs: 1000,
    computeInputNs: 500, computeInferNs: 2000, computeOutputNs: 250, ...over,
  };
}

function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  assert.ok(line, `missing series ${series} in\n${text}`);
  return Number(line.split(' ')[1]);
}

test('Triton metric names and labels, fed by listener records, on GET /metrics', async () => {
  const server = createFakeServer();
  let listener: ModelListener | undefined;
  server.addListener = (l) => { listener = l; return () => { listener = undefined; }; };
  const h = await startMetricsServer(server, { port: 0, host: '127.0.0.1', config: { summary_latencies: 'true', histogram_latencies: 'true' } });
  try {
    listener!.onRequest!(record({ batchSize: 4, firstResponseNs: 150e6 }));
    listener!.onRequest!(record({ requestNs: 3000 }));
    listener!.onRequest!(record({ success: false, reason: 'REJECTED' }));
    listener!.onExecution!({ model: 'm', version: '1', batchSize: 5 });
    listener!.onPending!('m', '1', 3);
    const res = await fetch(`http://127.0.0.1:${h.port}/metrics`);
    assert.equal(res.status, 200);
    const text = await res.text();
    const l = '{model="m",version="1"}';
    assert.equal(value(text, `nv_inference_request_success${l}`), 2);
    assert.equal(value(text, 'nv_inference_request_failure{model="m",version="1",reason="REJECTED"}'), 1);
    assert.equal(value(text, `nv_inference_count${l}`), 5);
    assert.equal(value(text, `nv_inference_exec_count${l}`), 1);
    assert.equal(value(text, `nv_inference_pending_request_count${l}`), 3);
    assert.equal(value(text, `nv_inference_request_duration_us${l}`), 13);
    assert.equal(value(text, `nv_inference_queue_duration_us${l}`), 3);
    assert.equal(value(text, `nv_inference_compute_infer_duration_us${l}`), 6);
    assert.equal(value(text, `nv_inference_compute_input_duration_us${l}`), 1.5);
    assert.equal(value(text, `nv_inference_compute_output_duration_us${l}`), 0.75);
    assert.equal(value(text, 'nv_inference_request_summary_us_count{model="m",version="1"}'), 2);
    assert.equal(value(text, 'nv_inference_first_response_histogram_ms_bucket{le="500",model="m",version="1"}'), 1);
    assert.equal(value(text, 'nv_inference_first_response_histogram_ms_bucket{le="100",model="m",version="1"}'), 0);
    assert.ok(value(text, 'nv_cpu_memory_total_bytes') > 0);
    const util = value(text, 'nv_cpu_utilization');
    assert.ok(util >= 0 && util <= 1);
    assert.ok(value(text, 'tributary_process_cpu_seconds_total{mode="total"}') > 0);
    assert.equal((await fetch(`http://127.0.0.1:${h.port}/nope`)).status, 404);
  } finally {
    await h.close();
  }
  assert.equal(listener, undefined, 'close detaches the listener');
});

test('summaries and histogram are off by default; counters can be turned off', async () => {
  const server = createFakeServer();
  const h = await startMetricsServer(server, { port: 0, host: '127.0.0.1', config: { counter_latencies: 'false' } });
  try {
    const text = await (await fetch(`http://127.0.0.1:${h.port}/metrics/`)).text();
    assert.ok(text.includes('nv_inference_request_success'));
    assert.ok(!text.includes('nv_inference_request_duration_us'));
    assert.ok(!text.includes('_summary_us'));
    assert.ok(!text.includes('first_response_histogram'));
  } finally {
    await h.close();
  }
});

test('metrics config is validated', () => {
  assert.deepEqual(parseMetricsConfig({ summary_quantiles: '0.5:0.05,0.9:0.01' }).summaryQuantiles, [{ quantile: 0.5, error: 0.05 }, { quantile: 0.9, error: 0.01 }]);
  assert.throws(() => parseMetricsConfig({ summary_quantiles: '2:0.1' }), /'2:0.1' must be <quantile in \(0,1\)>/);
  assert.throws(() => parseMetricsConfig({ counter_latencies: 'yes' }), /expected true or false/);
  assert.throws(() => parseMetricsConfig({ bogus: '1' }), /unknown setting 'bogus'/);
});
