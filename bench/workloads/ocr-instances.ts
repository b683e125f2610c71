/**
 * The built-in OCR pipeline at c=8 with 1 and 2 instances of its TypeScript steps (the `ocr`
 * orchestrator and the steps it calls: ocr_image for decode, box finding and crops, ocr_ctc,
 * ocr_rows), and the declared `ocr_mapped` pipeline with 1 and 2 instances of the same script
 * steps, in process (server.infer, no HTTP client competing for the 2 cores). Variants run
 * alternately, twice, in one process; compare ratios within the run. A third `ocr` variant also
 * gives ocr_det and ocr_rec two instances each, to show where the time is.
 *   npm run bench ocr-instances, or node --import tsx bench/workloads/ocr-instances.ts [seconds] (default 4)
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lastValueFrom } from 'rxjs';
import { createServer, type Server } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { renderText } from '../../test/pipelines/render-text.js';
import { closedLoop, writeRepository, type RepoModel } from '../lib/index.js';

/** `ocr`: instances of each script model; `steps`: of ocr_det and ocr_rec; `base`: the x1 label its ratio is against. */
interface Variant { label: string; model: 'ocr' | 'ocr_mapped'; ocr: number; steps: number; base: string }

const VARIANTS: Variant[] = [
  { label: 'ocr x1', model: 'ocr', ocr: 1, steps: 1, base: 'ocr x1' },
  { label: 'ocr x2', model: 'ocr', ocr: 2, steps: 1, base: 'ocr x1' },
  { label: 'ocr x2, det/rec x2', model: 'ocr', ocr: 2, steps: 2, base: 'ocr x1' },
  { label: 'ocr_mapped, script steps x1', model: 'ocr_mapped', ocr: 1, steps: 1, base: 'ocr_mapped, script steps x1' },
  { label: 'ocr_mapped, script steps x2', model: 'ocr_mapped', ocr: 2, steps: 1, base: 'ocr_mapped, script steps x1' },
];

function withCount(config: string, count: number): string {
  return config.replace(/instance_group \[[^\]]*\]/, `instance_group [ { count: ${count} kind: KIND_CPU } ]`);
}

const SCRIPTS = ['ocr', 'ocr_image', 'ocr_ctc', 'ocr_rows'];

/** The OCR models copied from pipelines/, the scripts and the ONNX models with the given instance counts. */
function repository(v: Variant): string {
  return writeRepository([...SCRIPTS, 'ocr_det', 'ocr_rec'].map((name): RepoModel => {
    const src = join('pipelines', name);
    const files = Object.fromEntries(readdirSync(join(src, '1')).map((f) => [`1/${f}`, { copyFrom: join(src, '1', f) }]));
    const config = readFileSync(join(src, 'config.pbtxt'), 'utf8');
    return { name, config: withCount(config, SCRIPTS.includes(name) ? v.ocr : v.steps), files };
  }).concat({ name: 'ocr_mapped', config: readFileSync(join('pipelines', 'ocr_mapped', 'config.yaml'), 'utf8'), configFile: 'config.yaml', files: {} }));
}

export interface OcrInstancesReport { label: string; round: number; perSec: number; p50Ms: number }

/** Mean ms per request of `model` (its `success` duration) or of its compute, from the statistics. */
function meanMs(server: Server, model: string, what: 'success' | 'compute'): number {
  const s = server.modelStatistics(model).model_stats[0]!.inference_stats;
  const ns = what === 'success' ? s.success.ns : s.compute_input.ns + s.compute_infer.ns + s.compute_output.ns;
  return ns / Math.max(s.success.count, 1) / 1e6;
}

/**
 * At c=1 with one instance of everything: a request's time and the script's own share of it (its
 * total minus ocr_det's and ocr_rec's compute). That share does not bound what a second ocr
 * instance gains: an instance is held for its whole request, BLS awaits included (the scheduler
 * hands it the next request only when execute() settles), so one instance serves one request at a
 * time and caps throughput at 1 / (request time) however idle it is while its children run; a
 * second instance overlaps one request's detection and recognition with another's.
 */
async function scriptShare(seconds: number): Promise<string> {
  const repo = repository(VARIANTS[0]!);
  const server = await createServer({ modelRepository: repo });
  try {
    const image = createTensor('IMAGE', 'BYTES', [1, 1], [renderText(['ONNX inference', 'Tributary 2024'])]);
    await closedLoop(seconds, 1, () => lastValueFrom(server.infer({ model: 'ocr', inputs: [image] })));
    const total = meanMs(server, 'ocr', 'success');
    const det = meanMs(server, 'ocr_det', 'compute');
    const rec = meanMs(server, 'ocr_rec', 'compute');
    const share = (total - det - rec) / total;
    return `c=1, one instance each: ocr ${total.toFixed(1)} ms per request, of which ocr_det ${det.toFixed(1)} ms and ` +
      `ocr_rec ${rec.toFixed(1)} ms compute, the script itself ${(share * 100).toFixed(0)}%; an ocr instance is held for its ` +
      `whole request, awaits of its children included, so ocr x1 serves one request at a time (at most ${(1000 / total).toFixed(1)} req/s ` +
      `at this latency) and a second instance gains by overlapping requests, not by the script's share`;
  } finally {
    await server.close();
    rmSync(repo, { recursive: true, force: true });
  }
}

export async function runOcrInstancesBench(seconds = 4): Promise<{ share: string; runs: OcrInstancesReport[] }> {
  const share = await scriptShare(seconds);
  const image = createTensor('IMAGE', 'BYTES', [1, 1], [renderText(['ONNX inference', 'Tributary 2024'])]);
  const out: OcrInstancesReport[] = [];
  for (let round = 1; round <= 2; round++) {
    for (const v of VARIANTS) {
      const repo = repository(v);
      const server = await createServer({ modelRepository: repo });
      try {
        const once = () => lastValueFrom(server.infer({ model: v.model, inputs: [image] }));
        await closedLoop(1, 8, once); // warm-up: isolates, ORT arenas, JIT
        const r = await closedLoop(seconds, 8, once);
        out.push({ label: v.label, round, perSec: r.perSec, p50Ms: r.p50Us / 1000 });
      } finally {
        await server.close();
        rmSync(repo, { recursive: true, force: true });
      }
    }
  }
  return { share, runs: out };
}

export function formatOcrInstances({ share, runs: rs }: { share: string; runs: readonly OcrInstancesReport[] }): string {
  const baseOf = (label: string) => VARIANTS.find((v) => v.label === label)!.base;
  const base = (round: number, label: string) => rs.find((r) => r.round === round && r.label === baseOf(label))!.perSec;
  return rs.map((r) => `round ${r.round} ${r.label}: ${r.perSec.toFixed(1)} req/s at c=8 (p50 ${r.p50Ms.toFixed(0)} ms), ` +
    `${(r.perSec / base(r.round, r.label)).toFixed(2)}x of ${baseOf(r.label)}`).concat(share).join('\n');
}

/** The bench harness entry (bench/index.ts). */
export async function run(): Promise<object> {
  const reports = await runOcrInstancesBench(4);
  console.log(formatOcrInstances(reports));
  return { ocrInstances: reports };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  console.log(formatOcrInstances(await runOcrInstancesBench(Number(process.argv[2] ?? 4))));
}
