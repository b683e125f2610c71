/**
 * Server CPU per request at the edges: `tributary serve` in one process, `tributary perf` at c=8
 * (BENCH_EDGE_C) in another, and the server's own CPU counters (/proc/<pid>/stat, user + system)
 * read before and after each perf run, divided by the requests its statistics extension counted
 * in between. Cases: the identity backend over HTTP (binary tensors, as perf sends them) and gRPC,
 * the ONNX identity model over HTTP when build/models has it, and a 3-step identity pipeline over
 * HTTP. Targets (docs/PERFORMANCE.md): 70 µs over HTTP, 90 µs over gRPC, identity model.
 *
 * BENCH_EDGE_BASE=<another checkout> runs that checkout's server too, alternating with this one
 * (base, this, base, this, ...: BENCH_EDGE_ROUNDS, default 3), so a change is measured before and
 * after in one run on the same machine; each figure is the median of its rounds.
 *   npm run bench edge; BENCH_EDGE_MS=<perf window ms> (default 2000)
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { perfCli, serveCli, writeRepository, type CliServer, type RepoModel } from '../lib/index.js';

const WINDOW_MS = Number(process.env.BENCH_EDGE_MS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_EDGE_C ?? 8);
const BASE = process.env.BENCH_EDGE_BASE;
const ROUNDS = Number(process.env.BENCH_EDGE_ROUNDS ?? (BASE ? 3 : 1));
const ORT_MODEL = fileURLToPath(new URL('../../build/models/identity_fp32.onnx', import.meta.url));
const TICK_US = 1e6 / 100; // USER_HZ: /proc reports CPU time in 1/100 s on Linux

const identity = (name: string, backend: string) => [
  `name: "${name}"`, backend, 'max_batch_size: 8',
  'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]',
  'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]', '',
].join('\n');

const CHAIN3 = `name: "chain3"
platform: "ensemble"
max_batch_size: 8
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]
ensemble_scheduling { step [
  { model_name: "echo" model_version: -1 input_map { key: "INPUT0" value: "INPUT0" } output_map { key: "OUTPUT0" value: "a" } },
  { model_name: "echo" model_version: -1 input_map { key: "INPUT0" value: "a" } output_map { key: "OUTPUT0" value: "b" } },
  { model_name: "echo" model_version: -1 input_map { key: "INPUT0" value: "b" } output_map { key: "OUTPUT0" value: "OUTPUT0" } }
] }
`;

function cpuTicks(pid: number): number {
  // Fields after the command name's closing parenthesis: utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

async function successCount(s: CliServer, model: string): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${s.http}/v2/models/${model}/stats`);
  const body = (await r.json()) as { model_stats: { inference_stats: { success: { count: number } } }[] };
  return body.model_stats.reduce((n, m) => n + m.inference_stats.success.count, 0);
}

interface Case { name: string; model: string; protocol: 'http' | 'grpc' }
export interface EdgeFigure { perSec: number; requests: number; serverCpuUsPerRequest: number }

async function measure(s: CliServer, c: Case): Promise<EdgeFigure> {
  const url = `127.0.0.1:${c.protocol === 'http' ? s.http : s.grpc}`;
  const n0 = await successCount(s, c.model);
  const t0 = cpuTicks(s.pids[0]!);
  const { perSec } = await perfCli(['-m', c.model, '-u', url, '-i', c.protocol, '-b', '1', '--concurrency-range', String(CONCURRENCY), '-p', String(WINDOW_MS)]);
  const t1 = cpuTicks(s.pids[0]!);
  const requests = (await successCount(s, c.model)) - n0;
  return { perSec, requests, serverCpuUsPerRequest: ((t1 - t0) * TICK_US) / requests };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<object> {
  const models: RepoModel[] = [{ name: 'echo', config: identity('echo', 'backend: "identity"') }, { name: 'chain3', config: CHAIN3 }];
  const cases: Case[] = [
    { name: 'identity http', model: 'echo', protocol: 'http' },
    { name: 'identity grpc', model: 'echo', protocol: 'grpc' },
    { name: '3-step pipeline http', model: 'chain3', protocol: 'http' },
  ];
  if (existsSync(ORT_MODEL)) {
    models.push({ name: 'identity_fp32', config: identity('identity_fp32', 'platform: "onnxruntime_onnx"'), files: { '1/model.onnx': { copyFrom: ORT_MODEL } } });
    cases.splice(2, 0, { name: 'onnx identity http', model: 'identity_fp32', protocol: 'http' });
  }
  const servers = BASE ? [{ label: 'base', bin: join(BASE, 'bin/tributary.js') }, { label: 'this', bin: undefined }] : [{ label: 'this', bin: undefined }];
  const repo = writeRepository(models);
  const figures = new Map<string, EdgeFigure[]>();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const { label, bin } of servers) {
        const s = await serveCli(repo, [], bin);
        try {
          for (const c of cases) {
            const f = await measure(s, c);
            const key = `${c.name} (${label})`;
            figures.set(key, [...(figures.get(key) ?? []), f]);
            console.log(`${key.padEnd(30)} round ${round + 1}, c=${CONCURRENCY}: ${f.perSec.toFixed(0).padStart(6)}/s, server CPU ${f.serverCpuUsPerRequest.toFixed(1)} µs/req over ${f.requests} requests`);
          }
        } finally {
          await s.stop();
        }
      }
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
  const summary: Record<string, { perSec: number; serverCpuUsPerRequest: number }> = {};
  console.log(`\nmedians of ${ROUNDS} round(s):`);
  for (const [key, fs] of figures) {
    summary[key] = { perSec: median(fs.map((f) => f.perSec)), serverCpuUsPerRequest: median(fs.map((f) => f.serverCpuUsPerRequest)) };
    console.log(`${key.padEnd(30)} ${summary[key].perSec.toFixed(0).padStart(6)}/s, server CPU ${summary[key].serverCpuUsPerRequest.toFixed(1)} µs/req`);
  }
  if (BASE) {
    for (const c of cases) {
      const a = summary[`${c.name} (base)`]!;
      const b = summary[`${c.name} (this)`]!;
      console.log(`${c.name.padEnd(22)} this/base: CPU per request ${(b.serverCpuUsPerRequest / a.serverCpuUsPerRequest).toFixed(2)}x, throughput ${(b.perSec / a.perSec).toFixed(2)}x`);
    }
  }
  const cpu = (n: string) => summary[`${n} (this)`]?.serverCpuUsPerRequest ?? Infinity;
  const targets = { 'http identity <= 70 µs/req': cpu('identity http') <= 70, 'grpc identity <= 90 µs/req': cpu('identity grpc') <= 90 };
  console.log(Object.entries(targets).map(([k, ok]) => `${ok ? 'met' : 'MISSED'}: ${k}`).join('\n'));
  return { concurrency: CONCURRENCY, windowMs: WINDOW_MS, rounds: ROUNDS, ...(BASE ? { base: BASE } : {}), summary, targets };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
