/**
 * W3 (docs/PERFORMANCE.md): dynamic batching, in one run:
 * 1. per model, dynamic batching off and on over http-binary at c = 1..128, plus bare in-process
 *    onnxruntime: R4 gain at equal p99 (best DB-on ÷ best DB-off throughput whose p99 fits the same
 *    budget) and R1 served ÷ bare ORT at the batch size actually formed. Two models: the MLP
 *    64-256-256-10 (13 µs a row against ~50 µs of HTTP work per request, so batching can hardly
 *    help) and wide_mlp 256-1024x3-16 (0.75 ms at batch 1, ~0.21 ms a row batched: compute-bound);
 * 2. the rate limiter's cost per execution when resources are free: in-process c=1 mean latency
 *    with --rate-limit=execution_count (an uncontended resource) minus off, and the limiter alone;
 * 3. the adaptive delay against three fixed delays on wide_mlp, open-loop at low, medium and high
 *    arrival rates: p99 and throughput.
 * Models come from scripts/build-test-models.ts.
 *
 *   npm run bench batching
 */
import { rmSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { lastValueFrom } from 'rxjs';
import { ensureTestModels, testModelPath } from '../../scripts/build-test-models.js';
import { setLogSink } from '../../src/logger.js';
import { encodeInferRequest } from '../../src/protocol/index.js';
import { RateLimiter } from '../../src/scheduler/index.js';
import { createServer } from '../../src/server/index.js';
import { createTensor, type Tensor } from '../../src/tensor/index.js';
import {
  createHttpPoster, formatLoad, metricsCpuProbe, runConcurrency, runOpenLoop, spawnServer, writeRepository,
  type LoadResult, type OpenLoopResult,
} from '../lib/index.js';

const CONCURRENCY = [1, 4, 16, 64, 128];
const MAX_BATCH = 128;
const P99_BUDGETS_US = [2000, 5000, 10000, 20000];
const MODELS = {
  mlp: { file: 'mlp.onnx', inSize: 64, outSize: 10 },
  wide_mlp: { file: 'wide_mlp.onnx', inSize: 256, outSize: 16 },
} as const;
type ModelKey = keyof typeof MODELS;

function config(name: string, key: ModelKey, batching: string | false, extra = ''): string {
  const m = MODELS[key];
  return [
    `name: "${name}"`, 'platform: "onnxruntime_onnx"', `max_batch_size: ${MAX_BATCH}`,
    `input [ { name: "x" data_type: TYPE_FP32 dims: [ ${m.inSize} ] } ]`,
    `output [ { name: "y" data_type: TYPE_FP32 dims: [ ${m.outSize} ] } ]`,
    batching === false ? '' : `dynamic_batching { ${batching} }`,
    `instance_group [ { count: 1 kind: KIND_CPU ${extra} } ]`,
    'parameters { key: "intra_op_thread_count" value: { string_value: "1" } }', '',
  ].join('\n');
}

const num = (k: string, d: number) => (process.env[k] ? Number(process.env[k]) : d);
const knobs = () => ({ windowMs: num('BENCH_WINDOW_MS', 300), warmupMs: num('BENCH_WARMUP_MS', 200), maxTrials: num('BENCH_MAX_TRIALS', 3) });
const input = (key: ModelKey, rows = 1): Tensor => createTensor('x', 'FP32', [rows, MODELS[key].inSize], Array.from({ length: rows * MODELS[key].inSize }, (_, i) => (i % 7) / 7));
const r2 = (x: number) => Number(x.toFixed(2));

/** Bare onnxruntime items/s at `rows` per run, one intra-op thread, for `ms`. */
async function bareOrt(key: ModelKey, rows: number, ms: number): Promise<number> {
  const session = await ort.InferenceSession.create(testModelPath(MODELS[key].file), { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const x = new ort.Tensor('float32', new Float32Array(rows * MODELS[key].inSize).fill(0.5), [rows, MODELS[key].inSize]);
  for (let i = 0; i < 20; i++) await session.run({ x });
  let runs = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    await session.run({ x });
    runs++;
  }
  const items = (runs * rows * 1000) / (performance.now() - t0);
  await session.release();
  return items;
}

/** An HTTP child server over `models`, a poster, and a binary request body for `key`. */
async function httpServer(models: { name: string; config: string; key: ModelKey }[]) {
  const repo = writeRepository(models.map((m) => ({ name: m.name, config: m.config, files: { '1/model.onnx': { copyFrom: testModelPath(MODELS[m.key].file) } } })));
  const child = await spawnServer({ modelRepository: repo });
  const client = createHttpPoster(child.httpBase, 256);
  const post = (model: string, key: ModelKey) => {
    const enc = encodeInferRequest({ inputs: [input(key)], parameters: { binary_data_output: true } }, { binary: true });
    const headers = { 'inference-header-content-length': enc.headerLength!, 'content-type': 'application/octet-stream' };
    return () => client.post(`/v2/models/${model}/infer`, enc.body as Buffer, headers);
  };
  const counts = async (model: string) => {
    const s = JSON.parse((await client.get(`/v2/models/${model}/stats`)).body.toString()) as { model_stats: { inference_count: number; execution_count: number }[] };
    return { inferences: s.model_stats[0]!.inference_count, executions: s.model_stats[0]!.execution_count };
  };
  const close = async () => {
    client.close();
    await child.close();
    rmSync(repo, { recursive: true, force: true });
  };
  return { post, counts, close, cpu: metricsCpuProbe(child.metricsBase) };
}

type Swept = LoadResult & { avgBatch: number };

/** Part 1 for one model: DB off/on at each concurrency, alternated so drift hits both alike. */
async function sweep(key: ModelKey) {
  const k = knobs();
  const off = `${key}_nodb`;
  const on = `${key}_db`;
  const srv = await httpServer([{ name: off, key, config: config(off, key, false) }, { name: on, key, config: config(on, key, '') }]);
  const results: Record<string, Swept> = {};
  try {
    for (const m of [off, on]) await runConcurrency({ concurrency: 16, windowMs: 200, warmupMs: 200, maxTrials: 1, send: srv.post(m, key) });
    for (const c of CONCURRENCY) {
      for (const m of [off, on]) {
        const before = await srv.counts(m);
        const r = await runConcurrency({ concurrency: c, ...k, serverCpuSeconds: srv.cpu, send: srv.post(m, key) });
        const after = await srv.counts(m);
        const avgBatch = (after.inferences - before.inferences) / Math.max(1, after.executions - before.executions);
        results[`${m}@c${c}`] = { ...r, avgBatch };
        console.log(`${formatLoad(`http-binary ${m}`, r)}  batch ${avgBatch.toFixed(1)}`);
      }
    }
  } finally {
    await srv.close();
  }
  const offs = CONCURRENCY.map((c) => results[`${off}@c${c}`]!);
  const ons = CONCURRENCY.map((c) => results[`${on}@c${c}`]!);
  const best = (rs: Swept[], budget = Infinity) => rs.filter((r) => r.p99Us <= budget).sort((a, b) => b.throughput - a.throughput)[0];
  const gainAt = (budget: number) => {
    const a = best(ons, budget);
    const b = best(offs, budget);
    return a && b ? r2(a.throughput / b.throughput) : null;
  };
  const bestOn = best(ons)!;
  const bestOff = best(offs)!;
  const formed = Math.max(1, Math.round(bestOn.avgBatch));
  const bare = { batch1: Math.round(await bareOrt(key, 1, 1000)), formed: Math.round(await bareOrt(key, formed, 1000)) };
  const ratios = {
    R4_gain_at_p99_budget: Object.fromEntries(P99_BUDGETS_US.map((b) => [`${b}us`, gainAt(b)])),
    R4_gain_at_db_off_saturation_p99: gainAt(bestOff.p99Us),
    R4_gain_best_vs_best: r2(bestOn.throughput / bestOff.throughput),
    formed_batch_at_best: formed,
    bare_ort_items_per_s: bare,
    R1_served_over_bare_at_formed_batch: r2(bestOn.throughput / bare.formed),
  };
  console.log(key, ratios);
  return { results, ratios };
}

/** Part 2: in-process c=1, rate limiter off vs on (resource never contended), alternated 5 times. */
async function rateLimiterCost() {
  const k = knobs();
  const repo = writeRepository([{ name: 'mlp', config: config('mlp', 'mlp', '', 'rate_limiter { resources [ { name: "R" count: 1 } ] }'), files: { '1/model.onnx': { copyFrom: testModelPath('mlp.onnx') } } }]);
  const servers = {
    off: await createServer({ modelRepository: repo }),
    on: await createServer({ modelRepository: repo, rateLimit: 'execution_count' }),
  };
  const means: Record<string, number[]> = { off: [], on: [] };
  try {
    const x = input('mlp');
    for (let round = 0; round < 5; round++) {
      for (const mode of ['off', 'on'] as const) {
        const r = await runConcurrency({ concurrency: 1, ...k, send: () => lastValueFrom(servers[mode].infer({ model: 'mlp', inputs: [x] })) });
        means[mode]!.push(r.meanUs);
      }
    }
  } finally {
    await servers.off.close();
    await servers.on.close();
    rmSync(repo, { recursive: true, force: true });
  }
  // The best round of each: other load on the machine only ever adds time.
  const med = (a: number[]) => Math.min(...a);
  // The limiter alone: acquire (granted at once) and release, with the microtask release queues.
  const limiter = new RateLimiter();
  const [slot] = limiter.register('m', [{ resources: [{ name: 'R', count: 1, global: false }], priority: 0 }]);
  const N = 200_000;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    slot!.acquire(() => {});
    slot!.release();
    if (i % 1000 === 0) await Promise.resolve();
  }
  await new Promise((r) => setImmediate(r));
  const aloneNs = ((performance.now() - t0) * 1e6) / N;
  const out = { inproc_c1_mean_us: { off: r2(med(means.off!)), on: r2(med(means.on!)) }, cost_per_execution_us: r2(med(means.on!) - med(means.off!)), limiter_alone_ns: Math.round(aloneNs) };
  console.log('rate limiter', out);
  return out;
}

/** Part 3: the adaptive delay against fixed delays, open loop, same server, alternated per rate. */
async function adaptiveVsFixed(rates: readonly number[]) {
  const variants: Record<string, string> = {
    fixed_0us: config('fixed_0us', 'wide_mlp', 'max_queue_delay_microseconds: 0'),
    fixed_500us: config('fixed_500us', 'wide_mlp', 'max_queue_delay_microseconds: 500'),
    fixed_2000us: config('fixed_2000us', 'wide_mlp', 'max_queue_delay_microseconds: 2000'),
    adaptive: config('adaptive', 'wide_mlp', 'max_queue_delay_microseconds: 2000').replace(
      'parameters {', 'parameters { key: "adaptive_queue_delay_target_p99_us" value: { string_value: "10000" } }\nparameters {'),
  };
  const srv = await httpServer(Object.entries(variants).map(([name, c]) => ({ name, config: c, key: 'wide_mlp' as const })));
  const windowMs = num('BENCH_OPEN_WINDOW_MS', 3000);
  const out: Record<string, Record<string, OpenLoopResult & { avgBatch: number }>> = {};
  try {
    for (const name of Object.keys(variants)) await runOpenLoop({ ratePerS: rates[1]!, windowMs: 500, warmupMs: 0, send: srv.post(name, 'wide_mlp') });
    for (const rate of rates) {
      for (const name of Object.keys(variants)) {
        const before = await srv.counts(name);
        const r = await runOpenLoop({ ratePerS: rate, windowMs, warmupMs: 500, send: srv.post(name, 'wide_mlp') });
        const after = await srv.counts(name);
        const avgBatch = r2((after.inferences - before.inferences) / Math.max(1, after.executions - before.executions));
        (out[`${rate}/s`] ??= {})[name] = { ...r, avgBatch };
        console.log(`open loop ${rate}/s ${name.padEnd(13)} thr ${r.throughput.toFixed(0)}/s p50 ${(r.p50Us / 1000).toFixed(2)} ms p99 ${(r.p99Us / 1000).toFixed(2)} ms batch ${avgBatch} errors ${r.errors}`);
      }
    }
  } finally {
    await srv.close();
  }
  return out;
}

export async function run(): Promise<object> {
  ensureTestModels();
  setLogSink(() => {});
  const mlp = await sweep('mlp');
  const wide = await sweep('wide_mlp');
  const rateLimiter = await rateLimiterCost();
  const rates = [num('BENCH_RATE_LOW', 200), num('BENCH_RATE_MEDIUM', 1000), num('BENCH_RATE_HIGH', 2500)];
  const adaptive = await adaptiveVsFixed(rates);
  const bestGain = (r: typeof wide.ratios) => Math.max(...Object.values(r.R4_gain_at_p99_budget).map((v) => v ?? 0), r.R4_gain_at_db_off_saturation_p99 ?? 0);
  const targets = {
    'T5 batching gain >= 4x at equal p99 (wide_mlp)': bestGain(wide.ratios) >= 4,
    'T5 R1 >= 0.8 of bare ORT at the formed batch (wide_mlp)': wide.ratios.R1_served_over_bare_at_formed_batch >= 0.8,
  };
  for (const [name, ok] of Object.entries(targets)) console.log(`${ok ? 'MET ' : 'MISS'} ${name}`);
  return { knobs: knobs(), mlp, wide_mlp: wide, rate_limiter: rateLimiter, adaptive_vs_fixed: adaptive, targets };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
