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

export function createInferenceListener(registry: Registry, config: MetricsConfig): ModelListener {
  const labels = ['model', 'version'];
  const registers = [registry];
  const success = new Counter({ name: 'nv_inference_request_success', help: 'Number of successful inference requests, all batch sizes', labelNames: labels, registers });
  const failure = new Counter({ name: 'nv_inference_request_failure', help: 'Number of failed inference requests, all batch sizes', labelNames: [...labels, 'reason'], registers });
  const count = new Counter({ name: 'nv_inference_count', help: 'Number of inferences performed (does not include cached requests)', labelNames: labels, registers });
  const execCount = new Counter({ name: 'nv_inference_exec_count', help: 'Number of model executions performed (does not include cached requests)', labelNames: labels, registers });
  const pending = new Gauge({ name: 'nv_inference_pending_request_count', help: 'Instantaneous number of pending requests awaiting execution per-model.', labelNames: labels, registers });
  const counters = config.counterLatencies
    ? PHASES.map(([phase, field, help]) => [field, new Counter({ name: `nv_inference_${phase}_duration_us`, help, labelNames: labels, registers })] as const)
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
      const l = { model: r.model, version: r.version };
      if (r.success) {
        success.inc(l);
        // Triton's nv_inference_count leaves out cached requests: a hit ran nothing.
        if (!r.cache?.hit) count.inc(l, r.batchSize);
      } else {
        failure.inc({ ...l, reason: r.reason ?? 'OTHER' });
      }
      for (const [field, c] of counters) c.inc(l, r[field] / 1000);
      if (r.success) for (const [field, s] of summaries) s.observe(l, r[field] / 1000);
      if (firstResponse && r.firstResponseNs !== undefined) firstResponse.observe(l, r.firstResponseNs / 1e6);
      if (r.cache) cache({ ...r, cache: r.cache });
    },
    onExecution(r: ExecutionRecord) {
      execCount.inc({ model: r.model, version: r.version });
    },
    onPending(model: string, version: string, depth: number) {
      pending.set({ model, version }, depth);
    },
    onChildCall: childCall,
    ...experiments,
  };
}
