/**
 * Triton's per-model inference metrics (names and labels from docs/user_guide/metrics.md), fed by
 * the server's listener records. Counters are on by default; summaries and the first-response
 * histogram are opt-in because they cost per observation.
 */
import { Counter, Gauge, Histogram, Summary, type Registry } from 'prom-client';
import type { ExecutionRecord, ModelListener, RequestRecord } from '../model/index.js';
import type { MetricsConfig } from './metrics-config.js';
import { createCacheRecorder } from './cache-metrics.js';
import { createChildCallRecorder } from './child-call-metrics.js';
import { createExperimentRecorders } from './experiment-metrics.js';

const PHASES = [
  ['request', 'requestNs', 'Cumulative inference request duration in microseconds (includes cached requests)'],
  ['queue', 'queueNs', 'Cumulative inference queuing duration in microseconds (includes cached requests)'],
  ['compute_input', 'computeInputNs', 'Cumulative compute input duration in microseconds'],
  ['compute_infer', 'computeInferNs', 'Cumulative compute inference duration in microseconds'],
  ['compute_output', 'computeOutputNs', 'Cumulative inference compute output duration in microseconds'],
] as const;

/**
 * One model version's counts since the last scrape. The request path only adds numbers here; the
 * labelled series (whose every update hashes its labels: 7 of them per request, about 5 µs) are
 * brought up to date when /metrics is read.
 */
class Since {
  readonly labels: { model: string; version: string };
  succeeded = 0;
  inferences = 0;
  executions = 0;
  /** Sums of each PHASES field over the requests (successes and failures, as Triton counts them). */
  readonly phases = [0, 0, 0, 0, 0];
  /** Requests recorded since the last scrape: the phase series then exist, even at 0. */
  requests = 0;
  readonly failures = new Map<string, number>();
  depth: number | undefined;

  constructor(model: string, version: string) {
    this.labels = { model, version };
  }
}

export function createInferenceListener(registry: Registry, config: MetricsConfig): ModelListener {
  const labels = ['model', 'version'];
  const registers = [registry];
  const byModel = new Map<string, Map<string, Since>>();
  const since = (model: string, version: string): Since => {
    let versions = byModel.get(model);
    if (!versions) byModel.set(model, versions = new Map());
    let s = versions.get(version);
    if (!s) versions.set(version, s = new Since(model, version));
    return s;
  };
  // Every family below reads through this first; the first of a scrape moves the counts, the rest find none.
  const collect = () => {
    for (const versions of byModel.values()) {
      for (const s of versions.values()) {
        const l = s.labels;
        if (s.succeeded) success.inc(l, s.succeeded);
        if (s.inferences) count.inc(l, s.inferences);
        if (s.executions) execCount.inc(l, s.executions);
        for (const [reason, n] of s.failures) failure.inc({ ...l, reason }, n);
        if (s.requests) counters.forEach((c, i) => c.inc(l, s.phases[i]! / 1000));
        if (s.depth !== undefined) pending.set(l, s.depth);
        s.succeeded = s.inferences = s.executions = s.requests = 0;
        s.phases.fill(0);
        s.failures.clear();
        s.depth = undefined;
      }
    }
  };
  const success = new Counter({ name: 'nv_inference_request_success', help: 'Number of successful inference requests, all batch sizes', labelNames: labels, registers, collect });
  const failure = new Counter({ name: 'nv_inference_request_failure', help: 'Number of failed inference requests, all batch sizes', labelNames: [...labels, 'reason'], registers, collect });
  const count = new Counter({ name: 'nv_inference_count', help: 'Number of inferences performed (does not include cached requests)', labelNames: labels, registers, collect });
  const execCount = new Counter({ name: 'nv_inference_exec_count', help: 'Number of model executions performed (does not include cached requests)', labelNames: labels, registers, collect });
  const pending = new Gauge({ name: 'nv_inference_pending_request_count', help: 'Instantaneous number of pending requests awaiting execution per-model.', labelNames: labels, registers, collect });
  const counters = config.counterLatencies
    ? PHASES.map(([phase, , help]) => new Counter({ name: `nv_inference_${phase}_duration_us`, help, labelNames: labels, registers, collect }))
    : [];
  const summaries = config.summaryLatencies
    ? PHASES.map(([phase, field, help]) => [field, new Summary({
      name: `nv_inference_${phase}_summary_us`, help: help.replace('Cumulative', 'Summary of'), labelNames: labels, registers,
      percentiles: config.summaryQuantiles.map((q) => q.quantile), maxAgeSeconds: config.summaryMaxAgeSeconds, ageBuckets: 5,
    })] as const)
    : [];
  const firstResponse = config.histogramLatencies
    ? new Histogram({ name: 'nv_inference_first_response_histogram_ms', help: 'Duration from request to first response in milliseconds', labelNames: labels, registers, buckets: config.histogramBucketsMs })
    : undefined;
  const cache = createCacheRecorder(registry, config);
  const childCall = createChildCallRecorder(registry);
  const experiments = createExperimentRecorders(registry);

  return {
    onRequest(r: RequestRecord) {
      const s = since(r.model, r.version);
      if (r.success) {
        s.succeeded++;
        // Triton's nv_inference_count leaves out cached requests: a hit ran nothing.
        if (!r.cache?.hit) s.inferences += r.batchSize;
      } else {
        const reason = r.reason ?? 'OTHER';
        s.failures.set(reason, (s.failures.get(reason) ?? 0) + 1);
      }
      if (counters.length) {
        s.requests++;
        const p = s.phases;
        p[0]! += r.requestNs;
        p[1]! += r.queueNs;
        p[2]! += r.computeInputNs;
        p[3]! += r.computeInferNs;
        p[4]! += r.computeOutputNs;
      }
      if (r.success) for (const [field, m] of summaries) m.observe(s.labels, r[field] / 1000);
      if (firstResponse && r.firstResponseNs !== undefined) firstResponse.observe(s.labels, r.firstResponseNs / 1e6);
      if (r.cache) cache({ ...r, cache: r.cache });
    },
    onExecution(r: ExecutionRecord) {
      since(r.model, r.version).executions++;
    },
    onPending(model: string, version: string, depth: number) {
      since(model, version).depth = depth;
    },
    onChildCall: childCall,
    ...experiments,
  };
}
