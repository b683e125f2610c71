/**
 * Experiments (docs/experiments.md): what routing costs a request, and what a mirror costs the
 * client. Three measurements:
 *   1. the router alone: the routing key, the stable hash and the pick, per request (target <= 2 µs);
 *   2. the experiment hop in process: `split` (two identity variants) against calling a variant
 *      directly, at c=1 and c=16, interleaved rounds: the whole cost of going through the model;
 *   3. over HTTP (the server in its own process): the same, and `mirrored` (a copy of every request
 *      to an identity shadow) and `slow_mirror` (a shadow that takes 20 ms, so its bound of 64
 *      copies in flight fills and copies are dropped): the client's p50/p99 with and without.
 *
 *   node --import tsx bench/workloads/experiment.ts [--seconds 2]
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lastValueFrom } from 'rxjs';
import { parseConfigText, type ModelConfig } from '../../src/config/index.js';
import { compileExperiment, type ExperimentPlan } from '../../src/experiment/index.js';
import { pickVariant, routingKey, stablePoint } from '../../src/experiment/pick-variant.js';
import { createServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { closedLoop, createHttpPoster, spawnServer, writeRepository, type ClosedLoopRun } from '../lib/index.js';

const identity = (name: string, delayMs = 0) => `name: "${name}"
backend: "identity"
max_batch_size: 8
input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
instance_group [ { kind: KIND_CPU count: 1 } ]
${delayMs ? `parameters { key: "execute_delay_ms" value: { string_value: "${delayMs}" } }` : ''}
`;

const experiment = (name: string, mirror?: string) => `name: ${name}
experiment:
  variants:
    - { model: ident_a, weight: 95 }
    - { model: ident_b, weight: 5 }
${mirror ? `  mirror: { model: ${mirror}, percent: 100, max_inflight_requests: 64 }\n` : ''}`;

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const summary = (runs: ClosedLoopRun[]) => ({ p50Us: med(runs.map((r) => r.p50Us)), p99Us: med(runs.map((r) => r.p99Us)), perSec: med(runs.map((r) => r.perSec)) });

/** ns per routing decision, over `n` requests (random, sticky on a header, sticky on a sequence). */
function routerCost(n = 1_000_000): Record<string, number> {
  const variant = parseConfigText(identity('v'), 'v/config.pbtxt', 'pbtxt').config;
  const plan = (sticky: string): ExperimentPlan => {
    const parsed = parseConfigText(`name: e\nexperiment:\n  variants:\n    - { model: a, weight: 95 }\n    - { model: b, weight: 5 }\n${sticky}`, 'e/config.yaml', 'yaml');
    return compileExperiment(parsed.config, (): ModelConfig => variant, () => ({ file: '', line: 1, col: 1 })).plan!;
  };
  const random = plan('');
  const sticky = plan('  sticky: { header: x-user }\n');
  const users = Array.from({ length: 1024 }, (_, i) => ({ model: 'e', inputs: [], routingHeaders: { 'x-user': `user-${i}@example.com` } }));
  const seqs = Array.from({ length: 1024 }, (_, i) => ({ model: 'e', inputs: [], sequence: { id: BigInt(1000 + i), start: false, end: false } }));
  const time = (f: (i: number) => unknown) => {
    for (let i = 0; i < n / 10; i++) f(i); // warm the JIT
    const t0 = process.hrtime.bigint();
    let sink = 0;
    for (let i = 0; i < n; i++) if (f(i)) sink++;
    const ns = Number(process.hrtime.bigint() - t0) / n;
    if (sink < 0) console.log(sink);
    return Math.round(ns);
  };
  const route = (p: ExperimentPlan, r: (typeof users)[number] | (typeof seqs)[number]) => {
    const key = routingKey(p, r);
    return pickVariant(p, key === undefined ? Math.random() : stablePoint(key));
  };
  return {
    randomNs: time((i) => route(random, users[i & 1023]!)),
    stickyHeaderNs: time((i) => route(sticky, users[i & 1023]!)),
    sequenceNs: time((i) => route(random, seqs[i & 1023]!)),
  };
}

export async function runExperimentBench(seconds = 2): Promise<string[]> {
  const lines: string[] = [];
  const r = routerCost();
  lines.push(`router: ${r.randomNs} ns (weighted random), ${r.stickyHeaderNs} ns (sticky on a header), ${r.sequenceNs} ns (a sequence's correlation id) per request [target <= 2000 ns]`);

  const repo = writeRepository([
    { name: 'ident_a', config: identity('ident_a') },
    { name: 'ident_b', config: identity('ident_b') },
    { name: 'shadow', config: identity('shadow') },
    { name: 'slow_shadow', config: identity('slow_shadow', 20) },
    { name: 'split', config: experiment('split'), configFile: 'config.yaml' },
    { name: 'mirrored', config: experiment('mirrored', 'shadow'), configFile: 'config.yaml' },
    { name: 'slow_mirror', config: experiment('slow_mirror', 'slow_shadow'), configFile: 'config.yaml' },
  ]);
  const models = ['split', 'mirrored', 'slow_mirror'];
  try {
    // In process: the whole hop through an experiment model, with no socket in the way.
    const server = await createServer({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['split'] });
    try {
      const x = createTensor('X', 'FP32', [1, 4], [1, 2, 3, 4]);
      const call = (model: string) => () => lastValueFrom(server.infer({ model, inputs: [x] }));
      for (const c of [1, 16]) {
        const s = await interleaved(seconds, c, { direct: call('ident_a'), split: call('split') });
        lines.push(`in process c=${c}: variant direct p50 ${s.direct!.p50Us.toFixed(1)} µs | through the experiment p50 ${s.split!.p50Us.toFixed(1)} µs | hop ${(s.split!.p50Us - s.direct!.p50Us).toFixed(1)} µs (p50), ${(1e6 / s.split!.perSec - 1e6 / s.direct!.perSec).toFixed(1)} µs (throughput)`);
      }
    } finally {
      await server.close();
    }
    // Over HTTP, the server in its own process: what a mirror costs the client. A mirrored copy
    // runs on the server's CPU too; the bound keeps a slow mirror from piling copies up.
    const proc = await spawnServer({ modelRepository: repo, loadModels: models });
    const http = createHttpPoster(proc.httpBase);
    try {
      const body = Buffer.from(JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }] }));
      const post = (model: string) => () => http.post(`/v2/models/${model}/infer`, body, { 'content-type': 'application/json' });
      for (const c of [1, 16]) {
        const s = await interleaved(seconds, c, { direct: post('ident_a'), split: post('split'), mirrored: post('mirrored'), slow_mirror: post('slow_mirror') });
        const e = s.split!;
        lines.push(`HTTP c=${c}: variant direct p50 ${s.direct!.p50Us.toFixed(0)} µs p99 ${s.direct!.p99Us.toFixed(0)} µs | experiment p50 ${e.p50Us.toFixed(0)} µs p99 ${e.p99Us.toFixed(0)} µs ${e.perSec.toFixed(0)}/s`);
        for (const name of ['mirrored', 'slow_mirror']) {
          const m = s[name]!;
          const d = (a: number, b: number) => `${a - b >= 0 ? '+' : ''}${(a - b).toFixed(0)}`;
          lines.push(`HTTP c=${c}: ${name} p50 ${m.p50Us.toFixed(0)} µs p99 ${m.p99Us.toFixed(0)} µs ${m.perSec.toFixed(0)}/s (against no mirror: p50 ${d(m.p50Us, e.p50Us)} µs, p99 ${d(m.p99Us, e.p99Us)} µs)`);
        }
      }
      const text = await (await fetch(`${proc.metricsBase}/metrics`)).text();
      const copies = [...text.matchAll(/^tributary_experiment_mirror_total\{experiment="([^"]+)",outcome="([^"]+)"\} (\d+)$/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
      lines.push(`mirror copies: ${copies.join(', ')}`);
    } finally {
      http.close();
      await proc.close();
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
  return lines;
}

/** Each path in turn, `rounds` times, so load from other processes on the box hits every path alike. */
async function interleaved(seconds: number, c: number, paths: Record<string, () => Promise<unknown>>): Promise<Record<string, ReturnType<typeof summary>>> {
  for (const f of Object.values(paths)) await closedLoop(0.3, c, f); // warm every path
  const rounds = 6;
  const runs: Record<string, ClosedLoopRun[]> = Object.fromEntries(Object.keys(paths).map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) for (const [name, f] of Object.entries(paths)) runs[name]!.push(await closedLoop(seconds / rounds, c, f));
  return Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, summary(v)]));
}

/** `npm run bench experiment` */
export async function run(): Promise<object> {
  const lines = await runExperimentBench(2);
  for (const l of lines) console.log(l);
  return { lines };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const i = process.argv.indexOf('--seconds');
  const seconds = i > 0 ? Number(process.argv[i + 1]) : 2;
  for (const line of await runExperimentBench(seconds)) console.log(line);
}
