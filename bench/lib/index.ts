/**
 * The benchmark toolkit (method in docs/PERFORMANCE.md). A workload is `bench/workloads/<name>.ts` exporting
 * `run(): Promise<object>`; it typically:
 *   1. writes a model repository (`writeRepository`) and starts the server in a child process
 *      (`spawnServer`), so the load generator never shares the server's event loop;
 *   2. pre-encodes request bodies (src/protocol `encodeInferRequest`) and checks one response;
 *   3. calls `runConcurrency({ concurrency, send, serverCpuSeconds: metricsCpuProbe(metricsBase) })`
 *      per protocol and concurrency, and returns the LoadResults plus ratios.
 * Knobs come from the environment: BENCH_WINDOW_MS (default 1000), BENCH_WARMUP_MS (500),
 * BENCH_MAX_TRIALS (6).
 */
export { LogHistogram } from './log-histogram.js';
export { runConcurrency } from './run-concurrency.js';
export { closedLoop } from './closed-loop.js';
export type { ClosedLoopRun } from './closed-loop.js';
export type { ConcurrencyOptions, LoadResult, WindowResult } from './run-concurrency.js';
export { createHttpPoster, metricsCpuProbe } from './http-client.js';
export type { HttpPoster } from './http-client.js';
export { spawnServer } from './server-process.js';
export { perfCli, serveCli } from './cli-process.js';
export type { CliServer } from './cli-process.js';
export type { ServerProcess } from './server-process.js';
export { writeRepository } from './write-repository.js';
export type { RepoModel } from './write-repository.js';
export { LEGACY_OCR_COMMIT, legacyOcrModel } from './legacy-ocr.js';
export { benchKnobs, formatLoad } from './report.js';
export { runOpenLoop } from './open-loop.js';
export type { OpenLoopResult } from './open-loop.js';
