import type { LoadResult } from './run-concurrency.js';

export function benchKnobs(): { windowMs: number; warmupMs: number; maxTrials: number } {
  const num = (k: string, d: number) => (process.env[k] ? Number(process.env[k]) : d);
  return { windowMs: num('BENCH_WINDOW_MS', 1000), warmupMs: num('BENCH_WARMUP_MS', 500), maxTrials: num('BENCH_MAX_TRIALS', 6) };
}

/** One perf_analyzer-like summary line. */
export function formatLoad(label: string, r: LoadResult): string {
  const f = (n: number) => n.toFixed(0).padStart(7);
  const cpu = r.serverCpuUsPerRequest === undefined ? '' : `  server CPU ${r.serverCpuUsPerRequest.toFixed(1)} µs/req`;
  return `${label.padEnd(22)} c=${String(r.concurrency).padEnd(3)} ${f(r.throughput)} infer/s  p50 ${f(r.p50Us)} µs  p90 ${f(r.p90Us)}  p99 ${f(r.p99Us)}`
    + `  client CPU ${r.clientCpuUsPerRequest.toFixed(1)} µs/req${cpu}${r.stable ? '' : '  (UNSTABLE)'}${r.errors ? `  errors ${r.errors}` : ''}`;
}
