import type { LevelResult } from './perf-measure.js';

const us = (v: number) => String(Math.round(v));
const ips = (v: number) => String(Math.round(v * 1000) / 1000);

/**
 * Client send and receive are not split out of a request by the client SDK, so those columns are
 * 0 and the whole client-side time is in the latency; the network column is the latency minus the
 * server's queue and compute, as perf_analyzer derives it.
 */
function network(r: LevelResult): number {
  const s = r.server;
  return Math.max(0, r.avgUs - (s.queueUs + s.computeInputUs + s.computeInferUs + s.computeOutputUs));
}

/** One level as perf_analyzer prints it (`Request concurrency: N` / `Request Rate: N`). */
export function formatLevel(r: LevelResult, mode: 'concurrency' | 'request-rate'): string {
  const s = r.server;
  const lines = [
    mode === 'concurrency' ? `Request concurrency: ${r.level}` : `Request Rate: ${r.level} inference requests per seconds`,
    '  Client: ',
    `    Request count: ${r.requestCount}`,
    `    Throughput: ${ips(r.throughput)} infer/sec`,
    `    Avg latency: ${us(r.avgUs)} usec (standard deviation ${us(r.stdUs)} usec)`,
    ...[...r.percentiles].filter(([p], i, all) => all.findIndex(([q]) => q === p) === i).sort(([a], [b]) => a - b).map(([p, v]) => `    p${p} latency: ${us(v)} usec`),
    '  Server: ',
    `    Inference count: ${s.inferenceCount}`,
    `    Execution count: ${s.executionCount}`,
    `    Successful request count: ${s.successCount}`,
    `    Avg request latency: ${us(s.requestUs)} usec (overhead ${us(Math.max(0, s.requestUs - s.queueUs - s.computeInputUs - s.computeInferUs - s.computeOutputUs))} usec + queue ${us(s.queueUs)} usec + compute input ${us(s.computeInputUs)} usec + compute infer ${us(s.computeInferUs)} usec + compute output ${us(s.computeOutputUs)} usec)`,
  ];
  for (const st of r.steps) {
    lines.push(`    Step '${st.step}' (model ${st.model}): ${st.calls} calls, avg ${us(st.stepUs)} usec (queue ${us(st.queueUs)} usec + compute input ${us(st.computeInputUs)} usec + compute infer ${us(st.computeInferUs)} usec + compute output ${us(st.computeOutputUs)} usec)`);
  }
  if (!r.stable) lines.push(`  WARNING: not stable within ${r.windows.length} measurement windows; try a longer --measurement-interval`);
  return `${lines.join('\n')}\n`;
}

/** perf_analyzer's closing summary: one line per level, latency = the --percentile one or the average. */
export function formatSummary(results: readonly LevelResult[], mode: 'concurrency' | 'request-rate', percentile?: number): string {
  const head = 'Inferences/Second vs. Client ' + (percentile === undefined ? 'Average Batch Latency' : `p${percentile} Batch Latency`);
  const rows = results.map((r) => `${mode === 'concurrency' ? 'Concurrency' : 'Request Rate'}: ${r.level}, throughput: ${ips(r.throughput)} infer/sec, latency ${us(percentile === undefined ? r.avgUs : r.percentiles.get(percentile)!)} usec`);
  return `${[head, ...rows].join('\n')}\n`;
}

/** perf_analyzer's -f header (its --verbose-csv adds the last three columns). */
function csvHeader(mode: 'concurrency' | 'request-rate', verbose: boolean): string {
  return [
    mode === 'concurrency' ? 'Concurrency' : 'Request Rate', 'Inferences/Second', 'Client Send', 'Network+Server Send/Recv',
    'Server Queue', 'Server Compute Input', 'Server Compute Infer', 'Server Compute Output', 'Client Recv',
    'p50 latency', 'p90 latency', 'p95 latency', 'p99 latency',
    ...(verbose ? ['Avg latency', 'request/response', 'response wait'] : []),
  ].join(',');
}

/** The CSV: levels sorted by throughput, as perf_analyzer writes them; times in usec. */
export function formatCsv(results: readonly LevelResult[], mode: 'concurrency' | 'request-rate', verbose: boolean): string {
  const rows = [...results].sort((a, b) => a.throughput - b.throughput).map((r) => [
    String(r.level), ips(r.throughput), '0', us(network(r)), us(r.server.queueUs), us(r.server.computeInputUs),
    us(r.server.computeInferUs), us(r.server.computeOutputUs), '0',
    ...[50, 90, 95, 99].map((p) => us(r.percentiles.get(p)!)),
    ...(verbose ? [us(r.avgUs), '0', us(r.avgUs)] : []),
  ].join(','));
  return `${[csvHeader(mode, verbose), ...rows].join('\n')}\n`;
}
