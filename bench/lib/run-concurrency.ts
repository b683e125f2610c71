/**
 * perf_analyzer's concurrency mode: N requests always in flight, time windows, and a result only
 * once the last 3 windows agree within ±stability% on throughput and mean latency (merged like
 * perf_analyzer does). Server CPU per request comes from an optional probe sampled per window.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { LogHistogram } from './log-histogram.js';

export interface ConcurrencyOptions {
  /** Requests kept in flight. */
  concurrency: number;
  /** Sends one request; resolves when its response is complete. A rejection counts as an error. */
  send: () => Promise<unknown>;
  warmupMs?: number;
  windowMs?: number;
  /** Give up on stability after this many windows (the last 3 are reported, marked unstable). */
  maxTrials?: number;
  stabilityPercent?: number;
  /** Cumulative CPU seconds of the server process (from its metrics endpoint), if known. */
  serverCpuSeconds?: () => Promise<number | undefined>;
}

export interface WindowResult { requests: number; errors: number; ms: number; throughput: number; meanUs: number; serverCpuS?: number }

export interface LoadResult {
  concurrency: number;
  stable: boolean;
  windows: WindowResult[];
  requests: number;
  errors: number;
  throughput: number;
  meanUs: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  /** Server CPU µs per request over the reported windows (undefined without a probe). */
  serverCpuUsPerRequest?: number;
  /** This (client) process's CPU µs per request: with inproc runs, that is the whole cost. */
  clientCpuUsPerRequest: number;
  eventLoopDelayP99Us: number;
}

export async function runConcurrency(o: ConcurrencyOptions): Promise<LoadResult> {
  const windowMs = o.windowMs ?? 1000;
  const maxTrials = o.maxTrials ?? 10;
  const pct = (o.stabilityPercent ?? 10) / 100;
  let hist = new LogHistogram();
  let errors = 0;
  let running = true;
  const worker = async () => {
    while (running) {
      const t0 = performance.now();
      try {
        await o.send();
        hist.record((performance.now() - t0) * 1000);
      } catch {
        errors++;
      }
    }
  };
  const workers = Array.from({ length: o.concurrency }, worker);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await sleep(o.warmupMs ?? 500);

  const windows: { w: WindowResult; h: LogHistogram }[] = [];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let stable = false;
  const cpu0 = process.cpuUsage();
  for (let trial = 0; trial < maxTrials && !stable; trial++) {
    const s0 = await o.serverCpuSeconds?.();
    hist = new LogHistogram();
    errors = 0;
    loop.reset();
    loop.enable();
    const t0 = performance.now();
    await sleep(windowMs);
    const h = hist;
    const e = errors;
    const ms = performance.now() - t0;
    loop.disable();
    const s1 = await o.serverCpuSeconds?.();
    const w: WindowResult = { requests: h.count, errors: e, ms, throughput: (h.count / ms) * 1000, meanUs: h.mean() };
    if (s0 !== undefined && s1 !== undefined) w.serverCpuS = s1 - s0;
    windows.push({ w, h });
    if (windows.length >= 3) {
      const last = windows.slice(-3).map((x) => x.w);
      const within = (f: (x: WindowResult) => number) => {
        const v = last.map(f);
        return Math.min(...v) > 0 && Math.max(...v) / Math.min(...v) <= 1 + pct;
      };
      stable = within((x) => x.throughput) && within((x) => x.meanUs);
    }
  }
  const cpu = process.cpuUsage(cpu0);
  running = false;
  await Promise.all(workers);

  const last = windows.slice(-3);
  const merged = new LogHistogram();
  for (const x of last) merged.merge(x.h);
  const requests = last.reduce((n, x) => n + x.w.requests, 0);
  const ms = last.reduce((n, x) => n + x.w.ms, 0);
  const allRequests = windows.reduce((n, x) => n + x.w.requests, 0);
  const serverCpu = last.every((x) => x.w.serverCpuS !== undefined) ? last.reduce((n, x) => n + x.w.serverCpuS!, 0) : undefined;
  const result: LoadResult = {
    concurrency: o.concurrency,
    stable,
    windows: windows.map((x) => x.w),
    requests,
    errors: last.reduce((n, x) => n + x.w.errors, 0),
    throughput: (requests / ms) * 1000,
    meanUs: merged.mean(),
    p50Us: merged.quantile(0.5),
    p90Us: merged.quantile(0.9),
    p99Us: merged.quantile(0.99),
    clientCpuUsPerRequest: allRequests ? (cpu.user + cpu.system) / allRequests : 0,
    eventLoopDelayP99Us: loop.percentile(99) / 1000,
  };
  if (serverCpu !== undefined && requests) result.serverCpuUsPerRequest = (serverCpu * 1e6) / requests;
  return result;
}
