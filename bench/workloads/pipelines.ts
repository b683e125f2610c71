/**
 * Built-in pipelines over HTTP (v2 JSON; OCR images with the binary extension): p50/p99 latency at
 * concurrency 1, throughput at concurrency 8, and the per-step breakdown from
 * /v2/models/{m}/stats (mean queue and compute time per request of every step model).
 * Run: npm run bench pipelines, or node --import tsx bench/workloads/pipelines.ts [seconds-per-phase] (default 2)
 */
import { pathToFileURL } from 'node:url';
import { createServer } from '../../src/server/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { infer, type V2Input } from '../../examples/pipelines/v2-fetch.js';
import { renderText } from '../../test/pipelines/render-text.js';
import { closedLoop } from '../lib/index.js';

interface Workload { pipeline: string; steps: string[]; inputs: V2Input[] }

const workloads = (): Workload[] => [
  { pipeline: 'langid', steps: ['langid_featurize', 'langid_mlp', 'langid_topk'],
    inputs: [{ name: 'TEXT', datatype: 'BYTES', shape: [1, 1], data: ['Les enfants jouaient dans le jardin pendant que leurs parents préparaient le dîner.'] }] },
  { pipeline: 'sentiment', steps: ['sentiment_tokenize', 'sentiment_classifier', 'sentiment_label'],
    inputs: [{ name: 'TEXT', datatype: 'BYTES', shape: [1, 1], data: ['I absolutely love this film, the acting is wonderful and the story is brilliant.'] }] },
  { pipeline: 'ocr', steps: ['ocr_image', 'ocr_det', 'ocr_rec', 'ocr_ctc', 'ocr_rows'],
    inputs: [{ name: 'IMAGE', datatype: 'BYTES', shape: [1, 1], bytes: [renderText(['ONNX inference', 'Tributary 2024'])] }] },
  { pipeline: 'ocr_mapped', steps: ['ocr_image', 'ocr_det', 'ocr_rec', 'ocr_ctc', 'ocr_rows'],
    inputs: [{ name: 'IMAGE', datatype: 'BYTES', shape: [1, 1], bytes: [renderText(['ONNX inference', 'Tributary 2024'])] }] },
];

interface StepStat { requests: number; inferences: number; executions: number; queueNs: number; computeNs: number; successNs: number }

async function stats(url: string, model: string): Promise<StepStat> {
  type Duration = { count: number; ns: number };
  const res = await fetch(`${url}/v2/models/${model}/stats`);
  const s = (await res.json() as { model_stats: { inference_count: number; execution_count: number; inference_stats: Record<string, Duration> }[] }).model_stats[0]!;
  const ns = (k: string) => s.inference_stats[k]?.ns ?? 0;
  return {
    requests: s.inference_stats.success?.count ?? 0, inferences: s.inference_count, executions: s.execution_count,
    queueNs: ns('queue'), computeNs: ns('compute_input') + ns('compute_infer') + ns('compute_output'), successNs: ns('success'),
  };
}

export interface PipelineReport {
  pipeline: string;
  c1: { requests: number; p50Ms: number; p99Ms: number; serverMsPerRequest: number };
  c8: { requestsPerSecond: number; p50Ms: number };
  steps: { model: string; requests: number; items: number; executions: number; queueMsPerRequest: number; computeMsPerRequest: number }[];
}

/**
 * `repository` lets a variant of the built-in configs run beside them in one process (compare
 * figures only within one run); `only` picks pipelines by name; `backendConfig` as --backend-config.
 */
export async function runPipelinesBench(seconds = 2, repository = 'pipelines', only?: readonly string[], backendConfig: readonly string[] = []): Promise<PipelineReport[]> {
  const server = await createServer({ modelRepository: repository, backendConfig });
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${http.port}`;
  const reports: PipelineReport[] = [];
  try {
    for (const w of workloads().filter((x) => !only || only.includes(x.pipeline))) {
      const call = () => infer(url, w.pipeline, w.inputs);
      await closedLoop(0.3, 1, call); // warm-up: isolates, ORT arenas, JIT
      // The pipeline's own `success` duration is its server-side time per request, steps and
      // batching delays included (an ensemble's statistics cover the whole request).
      const models = [w.pipeline, ...w.steps];
      const before = await Promise.all(models.map((m) => stats(url, m)));
      const c1 = await closedLoop(seconds, 1, call);
      const after = await Promise.all(models.map((m) => stats(url, m)));
      const whole = (k: keyof StepStat) => after[0]![k] - before[0]![k];
      const c8 = await closedLoop(seconds, 8, call);
      reports.push({
        pipeline: w.pipeline,
        c1: { requests: c1.latenciesMs.length, p50Ms: c1.p50Us / 1000, p99Ms: c1.p99Us / 1000, serverMsPerRequest: whole('successNs') / Math.max(whole('requests'), 1) / 1e6 },
        c8: { requestsPerSecond: c8.perSec, p50Ms: c8.p50Us / 1000 },
        // statistics are cumulative: the c=1 phase is the difference of two snapshots
        steps: w.steps.map((model, i) => {
          const d = (k: keyof StepStat) => after[i + 1]![k] - before[i + 1]![k];
          const perReq = (ns: number) => ns / Math.max(d('requests'), 1) / 1e6;
          return { model, requests: d('requests'), items: d('inferences'), executions: d('executions'),
            queueMsPerRequest: perReq(d('queueNs')), computeMsPerRequest: perReq(d('computeNs')) };
        }),
      });
    }
  } finally {
    await http.close();
    await server.close();
  }
  return reports;
}

export function formatReports(reports: PipelineReport[]): string {
  return reports.flatMap((r) => [
    `${r.pipeline}: p50 ${r.c1.p50Ms.toFixed(2)} ms, p99 ${r.c1.p99Ms.toFixed(2)} ms at c=1 (${r.c1.requests} req), server-side mean ${r.c1.serverMsPerRequest.toFixed(3)} ms; ` +
      `${r.c8.requestsPerSecond.toFixed(0)} req/s at c=8 (p50 ${r.c8.p50Ms.toFixed(1)} ms)`,
    ...r.steps.map((s) => `  ${s.model}: ${s.requests} requests, ${s.items} items in ${s.executions} executions; ` +
      `per request: queue ${s.queueMsPerRequest.toFixed(3)} ms, compute ${s.computeMsPerRequest.toFixed(3)} ms`),
  ]).join('\n');
}

/** The bench harness entry (bench/index.ts). */
export async function run(): Promise<object> {
  const reports = await runPipelinesBench(2);
  console.log(formatReports(reports));
  // The text pipelines' script steps again with their fast path off (execute() on the isolate thread).
  const pool = await runPipelinesBench(2, 'pipelines', ['langid', 'sentiment'], ['typescript,fast_path_ms=0']);
  console.log(`with fast_path_ms 0:\n${formatReports(pool)}`);
  return { pipelines: reports, fastPathOff: pool };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  console.log(formatReports(await runPipelinesBench(Number(process.argv[2] ?? 2))));
}
