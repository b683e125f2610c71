/**
 * A plain closed loop, for workloads that set two paths side by side in one run and want raw
 * latencies rather than perf_analyzer's stability windows (for those, see runConcurrency):
 * `concurrency` callers each await `once` back to back for `seconds`.
 */
export interface ClosedLoopRun {
  /** Every request's latency in ms, sorted ascending. */
  latenciesMs: number[];
  p50Us: number;
  p99Us: number;
  perSec: number;
}

export async function closedLoop(seconds: number, concurrency: number, once: () => Promise<unknown>): Promise<ClosedLoopRun> {
  const lat: number[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      await once();
      lat.push(performance.now() - t0);
    }
  }));
  lat.sort((a, b) => a - b);
  const at = (q: number) => (lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] ?? Number.NaN) * 1000;
  return { latenciesMs: lat, p50Us: at(0.5), p99Us: at(0.99), perSec: lat.length / seconds };
}
