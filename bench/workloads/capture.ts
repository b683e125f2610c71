/**
 * What data capture costs the langid pipeline (three steps: a script, an ONNX model, a script):
 * throughput at concurrency 8 with capture off, at rate 0.01 and at rate 1 (every step's tensors to
 * JSON Lines files), side by side in one run. One server and its models serve all three; each side
 * is its own data plane edge (capture is decided at the edge), so only the capture differs. Rounds
 * interleave the sides (each round in the other order), medians reported. Targets: rate 0.01 within
 * 5 % of off, rate 1 within 25 %. Beside throughput, the process's CPU time per request (every
 * thread: the event loop, ONNX Runtime's, the script isolates') is reported: on a machine shared
 * with other work, throughput swings with the neighbours' load while CPU time per request does not
 * (much), so it is the steadier measure of what capture costs.
 *
 *   npm run bench capture, or node --import tsx bench/workloads/capture.ts [seconds-per-side] (default 6)
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lastValueFrom } from 'rxjs';
import { createCapture, parseCaptureConfig, type Capture } from '../../src/capture/index.js';
import { createDataPlane, type Edge } from '../../src/dataplane/index.js';
import { createServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { closedLoop } from '../lib/index.js';

const TEXTS = [
  'Les enfants jouaient dans le jardin pendant que leurs parents préparaient le dîner.',
  'I absolutely love this film, the acting is wonderful and the story is brilliant.',
  'Die Kinder spielten im Garten, während ihre Eltern das Abendessen vorbereiteten.',
];
const CONCURRENCY = 8;
const ROUNDS = 12;
const noHeaders = { get: () => undefined, entries: () => [] };

export interface CaptureBenchSide { name: string; perSec: number; p50Ms: number; vsOff: number; cpuUsPerRequest: number; cpuVsOff: number; records?: number; dropped?: number; bytesOnDisk?: number }

export async function runCaptureBench(seconds = 6): Promise<CaptureBenchSide[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-capture-bench-'));
  const server = await createServer({ modelRepository: 'pipelines', modelControlMode: 'explicit', loadModels: ['langid'] });
  const captures: Capture[] = [];
  try {
    const side = async (name: string, config?: string[]) => {
      const capture = config ? await createCapture(parseCaptureConfig([`dir=${join(dir, name.replace(/\W+/g, '_'))}`, ...config])!) : undefined;
      if (capture) captures.push(capture);
      const edge: Edge = createDataPlane(server, capture ? { capture } : {}).edge();
      let i = 0;
      const call = () => lastValueFrom(edge.infer({ model: 'langid', inputs: [createTensor('TEXT', 'BYTES', [1, 1], [TEXTS[i++ % TEXTS.length]!])] }, noHeaders).responses);
      return { name, capture, call };
    };
    const sides = [await side('capture off'), await side('rate 0.01', ['rate=0.01']), await side('rate 1', ['rate=1'])];
    for (const s of sides) await closedLoop(1, CONCURRENCY, s.call); // warm-up: isolates, ORT arenas, JIT
    const runs = sides.map(() => [] as { perSec: number; p50Us: number; cpuUs: number }[]);
    for (let r = 0; r < ROUNDS; r++) {
      const order = sides.map((_, i) => (r % 2 ? sides.length - 1 - i : i));
      for (const i of order) {
        const cpu0 = process.cpuUsage();
        const run = await closedLoop(seconds / ROUNDS, CONCURRENCY, sides[i]!.call);
        const cpu = process.cpuUsage(cpu0);
        runs[i]!.push({ ...run, cpuUs: (cpu.user + cpu.system) / Math.max(run.latenciesMs.length, 1) });
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const perSec = runs.map((rs) => med(rs.map((x) => x.perSec)));
    const cpuUs = runs.map((rs) => med(rs.map((x) => x.cpuUs)));
    for (const c of captures) await c.close();
    return sides.map((s, i) => {
      const out: CaptureBenchSide = { name: s.name, perSec: perSec[i]!, p50Ms: med(runs[i]!.map((x) => x.p50Us)) / 1000, vsOff: perSec[i]! / perSec[0]!, cpuUsPerRequest: cpuUs[i]!, cpuVsOff: cpuUs[i]! / cpuUs[0]! };
      if (s.capture) {
        const counts = s.capture.counts();
        const d = join(dir, s.name.replace(/\W+/g, '_'));
        out.records = counts.written.dir ?? 0;
        out.dropped = Object.values(counts.dropped).reduce((a, b) => a + b, 0);
        out.bytesOnDisk = readdirSync(d).reduce((n, f) => n + statSync(join(d, f)).size, 0);
      }
      return out;
    });
  } finally {
    for (const c of captures) await c.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatCaptureBench(sides: readonly CaptureBenchSide[]): string[] {
  return sides.map((s) => `${s.name}: ${s.perSec.toFixed(1)} req/s at c=${CONCURRENCY} (p50 ${s.p50Ms.toFixed(2)} ms), ${(100 * s.vsOff).toFixed(1)} % of off; CPU ${s.cpuUsPerRequest.toFixed(0)} µs per request, ${(100 * s.cpuVsOff).toFixed(1)} % of off's`
    + (s.records === undefined ? '' : `; ${s.records} records written (${((s.bytesOnDisk ?? 0) / 1024).toFixed(0)} KiB), ${s.dropped} dropped`));
}

/** `npm run bench capture` */
export async function run(): Promise<object> {
  const sides = await runCaptureBench(6);
  for (const l of formatCaptureBench(sides)) console.log(l);
  return { sides };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  for (const l of formatCaptureBench(await runCaptureBench(Number(process.argv[2] ?? 6)))) console.log(l);
}
