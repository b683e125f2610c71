/**
 * Control flow in pipelines, in process (server.infer), each pair side by side in interleaved rounds:
 *   1. map fan-out: a pipeline mapping 32 rows of X [32,16] to the identity model (dynamic batching,
 *      max_batch_size 32) against the same 32 calls issued at once by the caller;
 *   2. the routed text pipeline (pipelines/text_routed, switch + return) against the same logic as a
 *      TypeScript step (bench/models/text_routed_bls), for an English text (langid + sentiment)
 *      and a German one (langid, then "unsupported language");
 *   3. OCR: the `ocr_mapped` pipeline (maps over images and crops) and the `ocr` orchestrator (the
 *      same step models called from a script), each against the single-script orchestrator that
 *      did all the image work in one isolate (bench/lib/legacy-ocr.ts, read from git), on a
 *      rendered image of three lines, at c=1, 4 and 8.
 *   npm run bench control-flow, or node --import tsx bench/workloads/control-flow.ts [seconds] (default 3)
 */
import { rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { lastValueFrom } from 'rxjs';
import { createServer, type Server } from '../../src/server/index.js';
import { createTensor, type Tensor } from '../../src/tensor/index.js';
import { renderText } from '../../test/pipelines/render-text.js';
import { closedLoop, legacyOcrModel, writeRepository, type ClosedLoopRun } from '../lib/index.js';

const ITEMS = 32;
const WIDTH = 16;
const PIPELINES = fileURLToPath(new URL('../../pipelines', import.meta.url));
const BENCH_MODELS = fileURLToPath(new URL('../models', import.meta.url));

const IDENT = `name: "ident"
backend: "identity"
max_batch_size: ${ITEMS}
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ ${WIDTH} ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ ${WIDTH} ] } ]
dynamic_batching { max_queue_delay_microseconds: 0 }
instance_group [ { kind: KIND_CPU count: 1 } ]
`;

const FANOUT = `name: fanout
platform: ensemble
max_batch_size: 0
input:
  - { name: X, data_type: TYPE_FP32, dims: [${ITEMS}, ${WIDTH}] }
output:
  - { name: Y, data_type: TYPE_FP32, dims: [${ITEMS}, ${WIDTH}] }
steps:
  - map:
      over: X
      as: x
      concurrency: ${ITEMS}
      steps:
        - model: ident
          inputs: { INPUT0: x }
          outputs: { OUTPUT0: y }
      outputs: { y: Y }
`;

export interface PairReport { what: string; a: string; b: string; aP50Us: number; bP50Us: number; aPerSec: number; bPerSec: number }

const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)]!;

/** `a` and `b` in alternating rounds at concurrency c; medians of the rounds. */
async function sideBySide(what: string, names: [string, string], a: () => Promise<unknown>, b: () => Promise<unknown>, seconds: number, c: number): Promise<PairReport> {
  await closedLoop(0.3, c, a); // warm both paths: isolates, JIT, batcher
  await closedLoop(0.3, c, b);
  const ra: ClosedLoopRun[] = [];
  const rb: ClosedLoopRun[] = [];
  const rounds = 6;
  for (let r = 0; r < rounds; r++) {
    ra.push(await closedLoop(seconds / rounds, c, a));
    rb.push(await closedLoop(seconds / rounds, c, b));
  }
  return {
    what: `${what}, c=${c}`, a: names[0], b: names[1],
    aP50Us: median(ra.map((x) => x.p50Us)), bP50Us: median(rb.map((x) => x.p50Us)),
    aPerSec: median(ra.map((x) => x.perSec)), bPerSec: median(rb.map((x) => x.perSec)),
  };
}

async function fanOut(seconds: number): Promise<PairReport[]> {
  const repo = writeRepository([{ name: 'ident', config: IDENT }, { name: 'fanout', config: FANOUT, configFile: 'config.yaml' }]);
  const server = await createServer({ modelRepository: repo });
  try {
    const rows = Float32Array.from({ length: ITEMS * WIDTH }, (_, i) => i);
    const x = createTensor('X', 'FP32', [ITEMS, WIDTH], rows);
    const items = Array.from({ length: ITEMS }, (_, i) => createTensor('INPUT0', 'FP32', [1, WIDTH], rows.subarray(i * WIDTH, (i + 1) * WIDTH)));
    const mapped = async () => {
      const r = await lastValueFrom(server.infer({ model: 'fanout', inputs: [x] }));
      if (r.outputs[0]!.shape[0] !== ITEMS) throw new Error(`fanout returned shape [${r.outputs[0]!.shape.join(', ')}]`);
    };
    const direct = () => Promise.all(items.map((t) => lastValueFrom(server.infer({ model: 'ident', inputs: [t] }))));
    const out: PairReport[] = [];
    for (const c of [1, 4]) out.push(await sideBySide(`${ITEMS} items`, ['map', `${ITEMS} direct calls at once`], mapped, direct, seconds, c));
    return out;
  } finally {
    await server.close();
    rmSync(repo, { recursive: true, force: true });
  }
}

async function routed(seconds: number): Promise<PairReport[]> {
  const server: Server = await createServer({
    modelRepository: [PIPELINES, BENCH_MODELS], modelControlMode: 'explicit',
    // a script's callees are not loaded with it, as a pipeline's steps are
    loadModels: ['text_routed', 'text_routed_bls', 'langid_featurize', 'langid_mlp', 'langid_topk', 'sentiment_tokenize', 'sentiment_classifier', 'sentiment_label'],
  });
  try {
    const texts: [string, string][] = [
      ['English', 'I absolutely love this film, the acting is wonderful and the story is brilliant.'],
      ['German', 'Die Kinder spielten im Garten, während ihre Eltern das Abendessen vorbereiteten.'],
    ];
    const out: PairReport[] = [];
    for (const [lang, text] of texts) {
      const input: Tensor = createTensor('TEXT', 'BYTES', [1, 1], [new TextEncoder().encode(text)]);
      const ask = (model: string) => async () => {
        const r = await lastValueFrom(server.infer({ model, inputs: [input] }));
        if (!r.outputs.some((o) => o.name === 'LABEL')) throw new Error(`${model} answered without LABEL`);
      };
      for (const c of [1, 8]) out.push(await sideBySide(`routed, ${lang} text`, ['pipeline (switch/return)', 'TypeScript step'], ask('text_routed'), ask('text_routed_bls'), seconds, c));
    }
    return out;
  } finally {
    await server.close();
  }
}

async function ocr(seconds: number): Promise<PairReport[]> {
  const legacy = writeRepository([legacyOcrModel('ocr_legacy')]);
  const server = await createServer({ modelRepository: [PIPELINES, legacy], modelControlMode: 'explicit', loadModels: ['ocr', 'ocr_mapped', 'ocr_legacy'] });
  try {
    const image = createTensor('IMAGE', 'BYTES', [1, 1], [renderText(['ONNX inference', 'Tributary 2024', 'control flow'])]);
    const ask = (model: string) => () => lastValueFrom(server.infer({ model, inputs: [image] }));
    const out: PairReport[] = [];
    for (const c of [1, 4, 8]) {
      out.push(await sideBySide('OCR, 3 lines', ['ocr_mapped (map)', 'single-script ocr'], ask('ocr_mapped'), ask('ocr_legacy'), seconds, c));
      out.push(await sideBySide('OCR, 3 lines', ['ocr (orchestrator over steps)', 'single-script ocr'], ask('ocr'), ask('ocr_legacy'), seconds, c));
    }
    return out;
  } finally {
    await server.close();
    rmSync(legacy, { recursive: true, force: true });
  }
}

export function formatControlFlow(reports: readonly PairReport[]): string {
  return reports.map((r) => `${r.what}: ${r.a} p50 ${(r.aP50Us / 1000).toFixed(3)} ms, ${r.aPerSec.toFixed(0)}/s | ` +
    `${r.b} p50 ${(r.bP50Us / 1000).toFixed(3)} ms, ${r.bPerSec.toFixed(0)}/s | ` +
    `p50 ratio ${(r.aP50Us / r.bP50Us).toFixed(2)}x, throughput ratio ${(r.aPerSec / r.bPerSec).toFixed(2)}x`).join('\n');
}

export async function runControlFlowBench(seconds = 3): Promise<PairReport[]> {
  return [...await fanOut(seconds), ...await routed(seconds), ...await ocr(seconds * 4)];
}

/** Only the OCR pair: node --import tsx bench/workloads/control-flow.ts [seconds] ocr */
const onlyOcr = process.argv[3] === 'ocr';

/** The bench harness entry (bench/index.ts). */
export async function run(): Promise<object> {
  const reports = await runControlFlowBench(3);
  console.log(formatControlFlow(reports));
  return { controlFlow: reports };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const seconds = Number(process.argv[2] ?? 3);
  console.log(formatControlFlow(onlyOcr ? await ocr(seconds * 4) : await runControlFlowBench(seconds)));
}
