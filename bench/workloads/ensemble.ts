/**
 * W4-style ensemble overhead (docs/PERFORMANCE.md, W4 and T7): the 3-step identity pipeline `chain3` versus
 * the same three identity calls made back to back through the same in-process server API.
 * Overhead per step = (pipeline p50 - back-to-back p50) / 3, at c=1 and c=16; at c=16 also from
 * throughput (server time per request), which does not depend on queueing.
 *
 *   node --import tsx bench/workloads/ensemble.ts [--seconds 2]
 */
import { fileURLToPath } from 'node:url';
import { lastValueFrom } from 'rxjs';
import { createServer, type Server } from '../../src/server/index.js';
import { createTensor, type Tensor } from '../../src/tensor/index.js';
import { closedLoop, type ClosedLoopRun } from '../lib/index.js';

const REPO = fileURLToPath(new URL('../../test/fixtures/pipelines/repo', import.meta.url));

export async function runEnsembleBench(seconds = 2): Promise<string[]> {
  const server: Server = await createServer({ modelRepository: REPO, modelControlMode: 'explicit', loadModels: ['chain3'] });
  const lines: string[] = [];
  try {
    const x = createTensor('IN', 'FP32', [1, 4], [1, 2, 3, 4]);
    const pipeline = () => lastValueFrom(server.infer({ model: 'chain3', inputs: [x] }));
    const step = async (t: Tensor) => (await lastValueFrom(server.infer({ model: 'ident', inputs: [t] }))).outputs[0]!;
    const backToBack = async () => {
      let t: Tensor = { ...x, name: 'INPUT0' };
      for (let i = 0; i < 3; i++) t = { ...(await step(t)), name: 'INPUT0' };
      return t;
    };
    for (const c of [1, 16]) {
      await closedLoop(0.3, c, pipeline); // warm both paths
      await closedLoop(0.3, c, backToBack);
      // Interleaved rounds, so load from other processes on the box hits both sides alike.
      const rounds = 6;
      const ens: ClosedLoopRun[] = [];
      const direct: ClosedLoopRun[] = [];
      for (let r = 0; r < rounds; r++) {
        ens.push(await closedLoop(seconds / rounds, c, pipeline));
        direct.push(await closedLoop(seconds / rounds, c, backToBack));
      }
      const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const e = { p50Us: med(ens.map((x) => x.p50Us)), p99Us: med(ens.map((x) => x.p99Us)), perSec: med(ens.map((x) => x.perSec)) };
      const d = { p50Us: med(direct.map((x) => x.p50Us)), p99Us: med(direct.map((x) => x.p99Us)), perSec: med(direct.map((x) => x.perSec)) };
      const perStepUs = (e.p50Us - d.p50Us) / 3;
      const perStepThroughputUs = (1e6 / e.perSec - 1e6 / d.perSec) / 3;
      lines.push(
        `c=${c}: pipeline p50 ${e.p50Us.toFixed(1)} µs p99 ${e.p99Us.toFixed(1)} µs ${e.perSec.toFixed(0)}/s | ` +
        `3 calls back to back p50 ${d.p50Us.toFixed(1)} µs p99 ${d.p99Us.toFixed(1)} µs ${d.perSec.toFixed(0)}/s | ` +
        `overhead per step ${perStepUs.toFixed(1)} µs (p50), ${perStepThroughputUs.toFixed(1)} µs (throughput) [target <= 10 µs]`,
      );
    }
  } finally {
    await server.close();
  }
  return lines;
}

/** `npm run bench ensemble` */
export async function run(): Promise<object> {
  const lines = await runEnsembleBench(2);
  for (const l of lines) console.log(l);
  return { lines };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const i = process.argv.indexOf('--seconds');
  const seconds = i > 0 ? Number(process.argv[i + 1]) : 2;
  for (const line of await runEnsembleBench(seconds)) console.log(line);
}
