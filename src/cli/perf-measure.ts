import { setTimeout as sleep } from 'node:timers/promises';
import { breakdown, stepBreakdowns, type ConfigStep, type ServerBreakdown, type StatsSnapshot, type StepBreakdown } from './perf-stats.js';

/** One request: resolves when its last response arrived; rejects on any failure. */
export type SendOne = (worker: number) => Promise<void>;

export interface WindowStats { durationMs: number; count: number; throughput: number; avgUs: number; pUs?: number }

export interface LevelResult {
  level: number;
  stable: boolean;
  windows: WindowStats[];
  requestCount: number;
  /** Inferences per second: requests per second times the batch size. */
  throughput: number;
  avgUs: number;
  stdUs: number;
  /** p50, p90, p95, p99 and the --percentile one, by percentile. */
  percentiles: Map<number, number>;
  server: ServerBreakdown;
  steps: StepBreakdown[];
}

export interface MeasureSettings {
  mode: 'concurrency' | 'request-rate';
  intervalMs: number;
  stability: number;
  maxTrials: number;
  batchSize: number;
  percentile?: number;
  model: string;
  version?: string;
  steps: readonly ConfigStep[];
}

/** Nearest-rank percentile of sorted values. */
function percentileOf(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * perf_analyzer's stability rule: the last three windows' throughput and latency (the average, or
 * the --percentile one when given) each within ±stability of their own mean.
 */
function isStable(windows: readonly WindowStats[], stability: number, usePercentile: boolean): boolean {
  if (windows.length < 3) return false;
  const last = windows.slice(-3);
  const within = (vals: number[]) => {
    const mean = vals.reduce((a, b) => a + b, 0) / vals.length;
    return vals.every((v) => Math.abs(v - mean) <= stability * mean);
  };
  return last.every((w) => w.count > 0)
    && within(last.map((w) => w.throughput))
    && within(last.map((w) => (usePercentile ? w.pUs! : w.avgUs)));
}

const mean = (v: readonly number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : 0);

/**
 * Load at one level, in windows of `intervalMs` back to back, until three consecutive windows are
 * stable or `maxTrials` windows have run; the result merges the last three windows (their
 * latencies, their time, and the statistics deltas across them).
 */
export async function measureLevel(
  level: number, send: SendOne, stats: () => Promise<StatsSnapshot>, s: MeasureSettings, onWindow: (n: number, w: WindowStats) => void,
): Promise<LevelResult> {
  let completed: number[] = [];
  let failure: unknown;
  let running = true;
  const inflight = new Set<Promise<void>>();
  const one = (worker: number) => {
    const t0 = performance.now();
    const p = send(worker).then(() => { completed.push((performance.now() - t0) * 1000); }, (e: unknown) => { failure ??= e; running = false; });
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
    return p;
  };
  const loops: Promise<void>[] = [];
  if (s.mode === 'concurrency') {
    for (let w = 0; w < level; w++) loops.push((async () => { while (running) await one(w); })());
  } else {
    // Open loop: sends on a fixed schedule (perf_analyzer's constant distribution) whether or not
    // earlier requests have answered, so a slow server shows up as latency, not as fewer sends.
    const period = 1000 / level;
    loops.push((async () => {
      const start = performance.now();
      for (let i = 0; running; i++) {
        const wait = start + i * period - performance.now();
        if (wait > 0) await sleep(wait);
        if (running) void one(i);
      }
    })());
  }
  const snaps = [await stats()];
  const windows: WindowStats[] = [];
  const lats: number[][] = [];
  let cut = performance.now();
  try {
    for (let trial = 0; trial < s.maxTrials && failure === undefined; trial++) {
      await sleep(Math.max(0, s.intervalMs - (performance.now() - cut)));
      const now = performance.now();
      const batch = completed;
      completed = [];
      const durationMs = now - cut;
      cut = now;
      snaps.push(await stats());
      const sorted = batch.sort((a, b) => a - b);
      const w: WindowStats = {
        durationMs, count: sorted.length, throughput: (sorted.length * s.batchSize * 1000) / durationMs, avgUs: mean(sorted),
        ...(s.percentile === undefined ? {} : { pUs: percentileOf(sorted, s.percentile) }),
      };
      windows.push(w);
      lats.push(sorted);
      onWindow(trial + 1, w);
      if (isStable(windows, s.stability, s.percentile !== undefined)) break;
    }
  } finally {
    running = false;
    await Promise.all(loops);
    await Promise.allSettled([...inflight]);
  }
  if (failure !== undefined) throw failure;
  const k = windows.length;
  const from = Math.max(0, k - 3);
  const merged = lats.slice(from).flat().sort((a, b) => a - b);
  const time = windows.slice(from).reduce((a, w) => a + w.durationMs, 0);
  const avgUs = mean(merged);
  const ps = new Map<number, number>();
  for (const p of [50, 90, 95, 99, ...(s.percentile === undefined ? [] : [s.percentile])]) ps.set(p, percentileOf(merged, p));
  return {
    level, stable: isStable(windows, s.stability, s.percentile !== undefined), windows, requestCount: merged.length,
    throughput: (merged.length * s.batchSize * 1000) / time, avgUs,
    stdUs: Math.sqrt(mean(merged.map((v) => (v - avgUs) ** 2))),
    percentiles: ps,
    server: breakdown(snaps[from]!, snaps[k]!, s.model, s.version),
    steps: stepBreakdowns(snaps[from]!, snaps[k]!, s.model, s.version, s.steps),
  };
}
