/**
 * W3 (docs/PERFORMANCE.md): MLP 64-256-256-10 over http-binary with dynamic batching off and on,
 * concurrency 1..128, plus bare in-process onnxruntime on the same model. Reports
 * - R4 batching gain: best DB-on throughput ÷ best DB-off throughput whose p99 fits the same budget;
 * - R1 serving efficiency: served throughput ÷ bare ORT throughput at the batch size actually formed;
 * - T6 c=1 penalty: DB-on minus DB-off p50 at c=1 (delay 0 must cost nothing), in-process and HTTP.
 * Shorter windows than the other workloads (BENCH_WINDOW_MS default 300 here) keep the sweep
 * under 30 s on 2 cores. The model comes from scripts/build-test-models.ts (build/models/mlp.onnx).
 *
 *   node --import tsx bench/index.ts batching
 */
import { existsSync, rmSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { lastValueFrom } from 'rxjs';
import { setLogSink } from '../../src/logger.js';
import { decodeInferResponse, encodeInferRequest } from '../../src/protocol/index.js';
import { createServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { createHttpPoster, formatLoad, metricsCpuProbe, runConcurrency, spawnServer, writeRepository, type HttpPoster, type LoadResult } from '../lib/index.js';

const MODEL = new URL('../../build/models/mlp.onnx', import.meta.url).pathname;
const CONCURRENCY = [1, 4, 16, 64, 128];
const MAX_BATCH = 128;
const P99_BUDGETS_US = [1000, 2000, 5000, 10000];

function mlpConfig(name: string, batching: boolean): string {
  return [
    `name: "${name}"`, 'platform: "onnxruntime_onnx"', `max_batch_size: ${MAX_BATCH}`,
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 64 ] } ]',
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 10 ] } ]',
    batching ? 'dynamic_batching { }' : '',
    'instance_group [ { count: 1 kind: KIND_CPU } ]',
    'parameters { key: "intra_op_thread_count" value: { string_value: "1" } }', '',
  ].join('\n');
}

function knobs() {
  const num = (k: string, d: number) => (process.env[k] ? Number(process.env[k]) : d);
  return { windowMs: num('BENCH_WINDOW_MS', 300), warmupMs: num('BENCH_WARMUP_MS', 200), maxTrials: num('BENCH_MAX_TRIALS', 3) };
}

/** Bare onnxruntime items/s at `rows` per run, one intra-op thread, for `ms`. */
async function bareOrt(rows: number, ms: number): Promise<number> {
  const session = await ort.InferenceSession.create(MODEL, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const x = new ort.Tensor('float32', new Float32Array(rows * 64).fill(0.5), [rows, 64]);
  for (let i = 0; i < 50; i++) await session.run({ x });
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

async function modelCounts(client: HttpPoster, model: string): Promise<{ inferences: number; executions: number }> {
  const s = JSON.parse((await client.get(`/v2/models/${model}/stats`)).body.toString()) as { model_stats: { inference_count: number; execution_count: number }[] };
  return { inferences: s.model_stats[0]!.inference_count, executions: s.model_stats[0]!.execution_count };
}

/** Best throughput among results whose p99 fits `budgetUs`. */
function bestWithin(rs: readonly LoadResult[], budgetUs: number): LoadResult | undefined {
  return rs.filter((r) => r.p99Us <= budgetUs).sort((a, b) => b.throughput - a.throughput)[0];
}

export async function run(): Promise<object> {
  if (!existsSync(MODEL)) throw new Error(`${MODEL} is missing: run scripts/build-test-models.ts first`);
  const repo = writeRepository([
    { name: 'mlp_nodb', config: mlpConfig('mlp_nodb', false), files: { '1/model.onnx': { copyFrom: MODEL } } },
    { name: 'mlp_db', config: mlpConfig('mlp_db', true), files: { '1/model.onnx': { copyFrom: MODEL } } },
  ]);
  const k = knobs();
  const x = createTensor('x', 'FP32', [1, 64], Array.from({ length: 64 }, (_, i) => (i % 7) / 7));
  const results: Record<string, LoadResult & { avgBatch?: number }> = {};

  // In-process c=1 (the C-API equivalent): the batcher's own cost with no network noise.
  setLogSink(() => {});
  const local = await createServer({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
  try {
    for (const m of ['mlp_nodb', 'mlp_db']) {
      const r = await runConcurrency({ concurrency: 1, ...k, send: () => lastValueFrom(local.infer({ model: m, inputs: [x] })) });
      results[`inproc ${m}@c1`] = r;
      console.log(formatLoad(`inproc ${m}`, r));
    }
  } finally {
    await local.close();
  }

  const child = await spawnServer({ modelRepository: repo });
  const client = createHttpPoster(child.httpBase, 256);
  const cpu = metricsCpuProbe(child.metricsBase);
  try {
    const enc = encodeInferRequest({ inputs: [x], parameters: { binary_data_output: true } }, { binary: true });
    const body = enc.body as Buffer;
    const headers = { 'inference-header-content-length': enc.headerLength!, 'content-type': 'application/octet-stream' };
    const ref = await client.post('/v2/models/mlp_nodb/infer', body, headers);
    const refOut = decodeInferResponse(ref.body, Number(ref.headers['inference-header-content-length'])).outputs[0]!;
    const check = await client.post('/v2/models/mlp_db/infer', body, headers);
    const out = decodeInferResponse(check.body, Number(check.headers['inference-header-content-length'])).outputs[0]!;
    if (Array.from(out.data as Float32Array).join() !== Array.from(refOut.data as Float32Array).join()) throw new Error('mlp_db and mlp_nodb disagree');

    // Warm both models up, then alternate them per concurrency so drift hits both alike.
    for (const m of ['mlp_nodb', 'mlp_db']) await runConcurrency({ concurrency: 16, windowMs: 200, warmupMs: 200, maxTrials: 1, send: () => client.post(`/v2/models/${m}/infer`, body, headers) });
    for (const c of CONCURRENCY) {
      for (const m of ['mlp_nodb', 'mlp_db']) {
        const before = await modelCounts(client, m);
        const r: LoadResult & { avgBatch?: number } = await runConcurrency({ concurrency: c, ...k, serverCpuSeconds: cpu, send: () => client.post(`/v2/models/${m}/infer`, body, headers) });
        const after = await modelCounts(client, m);
        r.avgBatch = (after.inferences - before.inferences) / Math.max(1, after.executions - before.executions);
        results[`${m}@c${c}`] = r;
        console.log(`${formatLoad(`http-binary ${m}`, r)}  batch ${r.avgBatch.toFixed(1)}`);
      }
    }
  } finally {
    client.close();
    await child.close();
    rmSync(repo, { recursive: true, force: true });
  }

  const off = CONCURRENCY.map((c) => results[`mlp_nodb@c${c}`]!);
  const on = CONCURRENCY.map((c) => results[`mlp_db@c${c}`]!);
  const bestOn = [...on].sort((a, b) => b.throughput - a.throughput)[0]!;
  const bestOff = [...off].sort((a, b) => b.throughput - a.throughput)[0]!;
  const gainAt = (budget: number) => {
    const a = bestWithin(on, budget);
    const b = bestWithin(off, budget);
    return a && b ? Number((a.throughput / b.throughput).toFixed(2)) : null;
  };
  const formed = Math.max(1, Math.round((bestOn as { avgBatch?: number }).avgBatch ?? 1));
  const bareAtFormed = await bareOrt(formed, 1000);
  const bareAt1 = await bareOrt(1, 1000);
  const ratios = {
    R4_gain_at_p99_budget: Object.fromEntries(P99_BUDGETS_US.map((b) => [`${b}us`, gainAt(b)])),
    R4_gain_at_db_off_saturation_p99: gainAt(bestOff.p99Us),
    R4_gain_best_vs_best: Number((bestOn.throughput / bestOff.throughput).toFixed(2)),
    formed_batch_at_best: formed,
    bare_ort_items_per_s: { batch1: Math.round(bareAt1), [`batch${formed}`]: Math.round(bareAtFormed) },
    R1_served_over_bare_at_formed_batch: Number((bestOn.throughput / bareAtFormed).toFixed(2)),
    T6_c1_p50_penalty_inproc_us: Number((results['inproc mlp_db@c1']!.p50Us - results['inproc mlp_nodb@c1']!.p50Us).toFixed(1)),
    T6_c1_p50_penalty_http_us: Number((results['mlp_db@c1']!.p50Us - results['mlp_nodb@c1']!.p50Us).toFixed(1)),
  };
  const best = Math.max(...Object.values(ratios.R4_gain_at_p99_budget).map((v) => v ?? 0), ratios.R4_gain_at_db_off_saturation_p99 ?? 0);
  const targets = {
    'T5 batching gain >= 4x at c >= 32 (equal p99)': best >= 4,
    'T5 R1 >= 0.8 of bare ORT at the formed batch': ratios.R1_served_over_bare_at_formed_batch >= 0.8,
    'T6 c=1 penalty <= 10 µs at delay 0 (in-process)': ratios.T6_c1_p50_penalty_inproc_us <= 10,
  };
  console.log('ratios', ratios);
  for (const [name, ok] of Object.entries(targets)) console.log(`${ok ? 'MET ' : 'MISS'} ${name}`);
  return { model: 'mlp 64-256-256-10 (onnxruntime, 1 instance, 1 intra-op thread)', knobs: k, results, ratios, targets };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
