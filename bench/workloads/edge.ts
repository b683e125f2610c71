/**
 * Server CPU per request at the edges: `tributary serve` in one process, `tributary perf` at c=8
 * (BENCH_EDGE_C) in another, and the server's own CPU counters (/proc/<pid>/stat, user + system)
 * read before and after each perf run, divided by the requests its statistics extension counted
 * in between. Cases: the identity backend over HTTP (binary tensors, as perf sends them) and gRPC,
 * the ONNX identity model over HTTP when build/models has it, and a 3-step identity pipeline over
 * HTTP. Each case is warmed by a perf run that is not counted (BENCH_EDGE_WARM_MS, default 1000),
 * then measured at c=8, then run at c=64 for throughput and p99/p50 (BENCH_EDGE_C64=0 skips it).
 * Targets (docs/PERFORMANCE.md): 70 µs over HTTP, 90 µs over gRPC, identity model.
 *
 * Then the direct paths against the framework paths in one server process (the same server behind
 * an HTTP front end with the direct /infer and one without, a gRPC front end with the direct
 * ModelInfer and one without), a closed loop at c=8 from this process alternating between them in
 * 1 s windows (BENCH_EDGE_PATH_ROUNDS rounds, default 8), server CPU from /proc per window: the
 * same process, JIT state and machine load for both sides. Node's own floor runs in the same
 * rotation: bench/lib/floor-server.js, plain node:http and node:http2 answering the same bytes. BENCH_EDGE=paths runs only this part,
 * BENCH_EDGE=perf only the first.
 *
 * BENCH_EDGE_BASE=<another checkout> runs that checkout's server too, alternating with this one
 * (base, this, base, this, ...: BENCH_EDGE_ROUNDS, default 3), so a change is measured before and
 * after in one run on the same machine; each figure is the median of its rounds.
 *   npm run bench edge; BENCH_EDGE_MS=<perf window ms> (default 2000)
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadProtos } from '../../src/frontend/grpc/index.js';
import { encodeInferRequest } from '../../src/protocol/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { createHttpPoster, perfCli, serveCli, spawnServer, writeRepository, type CliServer, type RepoModel } from '../lib/index.js';

const WINDOW_MS = Number(process.env.BENCH_EDGE_MS ?? 2000);
const WARM_MS = Number(process.env.BENCH_EDGE_WARM_MS ?? 1000);
const C64 = process.env.BENCH_EDGE_C64 !== '0';
// BENCH_EDGE_PIN=1: the server on CPU 1, perf on CPU 0, as a machine with cores to spare keeps them
// apart. On 2 cores the scheduler otherwise moves both around, and the server's CPU per request
// then carries the client's interference (cross-CPU wake-ups, cold caches): 10-25% more here.
const PIN = process.env.BENCH_EDGE_PIN === '1' ? { server: '1', client: '0' } : undefined;
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
export interface EdgeFigure {
  perSec: number; requests: number; serverCpuUsPerRequest: number;
  /** At c=64 (BENCH_EDGE_C64 other than 0): throughput and the p99/p50 latency ratio. */
  c64?: { perSec: number; p50Us: number; p99Us: number };
}

const perfArgs = (c: Case, url: string, concurrency: number, ms: number) =>
  ['-m', c.model, '-u', url, '-i', c.protocol, '-b', '1', '--concurrency-range', String(concurrency), '-p', String(ms)];

async function measure(s: CliServer, c: Case): Promise<EdgeFigure> {
  const url = `127.0.0.1:${c.protocol === 'http' ? s.http : s.grpc}`;
  // A fresh server's first second is its JIT compiling the path: counted, it read 30-80% above the steady state.
  if (WARM_MS > 0) await perfCli(perfArgs(c, url, CONCURRENCY, WARM_MS), PIN?.client);
  const n0 = await successCount(s, c.model);
  const t0 = cpuTicks(s.pids[0]!);
  const { perSec } = await perfCli(perfArgs(c, url, CONCURRENCY, WINDOW_MS), PIN?.client);
  const t1 = cpuTicks(s.pids[0]!);
  const requests = (await successCount(s, c.model)) - n0;
  const figure: EdgeFigure = { perSec, requests, serverCpuUsPerRequest: ((t1 - t0) * TICK_US) / requests };
  if (C64) {
    const r = await perfCli(perfArgs(c, url, 64, WINDOW_MS), PIN?.client);
    figure.c64 = { perSec: r.perSec, p50Us: r.p50Us, p99Us: r.p99Us };
  }
  return figure;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<object> {
  const only = process.env.BENCH_EDGE;
  return {
    ...(only === 'paths' ? {} : { perf: await runPerf() }),
    ...(only === 'perf' ? {} : { paths: await runPaths() }),
  };
}

const PATH_ROUNDS = Number(process.env.BENCH_EDGE_PATH_ROUNDS ?? 8);

/** The direct paths against the framework paths, interleaved in one server process (see the header). */
async function runPaths(): Promise<object> {
  const repo = writeRepository([{ name: 'echo', config: identity('echo', 'backend: "identity"') }]);
  const child = await spawnServer({ modelRepository: repo, grpc: true, routeTwins: true });
  const enc = encodeInferRequest({ inputs: [createTensor('INPUT0', 'FP32', [1, 16], new Float32Array(16))], outputs: [{ name: 'OUTPUT0', parameters: { binary_data: true } }] }, { binary: true });
  const body = enc.body as Buffer;
  const headers = { 'inference-header-content-length': enc.headerLength!, 'content-type': 'application/octet-stream' };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a client from the .proto files
  const pkg = loadPackageDefinition(loadProtos()) as any;
  const grpcRequest = { model_name: 'echo', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16] }], raw_input_contents: [Buffer.alloc(64)] };
  const grpcClient = (port: number) => {
    const c = new pkg.inference.GRPCInferenceService(`127.0.0.1:${port}`, credentials.createInsecure());
    return { once: () => new Promise((resolve, reject) => c.ModelInfer(grpcRequest, (e: Error | null, r: unknown) => (e ? reject(e) : resolve(r)))), close: () => c.close() };
  };
  const floor = await spawnFloor();
  const httpDirect = createHttpPoster(child.httpBase, CONCURRENCY);
  const httpFloor = createHttpPoster(`http://127.0.0.1:${floor.http}`, CONCURRENCY);
  const grpcFloor = grpcClient(floor.grpc);
  const httpRoute = createHttpPoster(child.httpRouteBase!, CONCURRENCY);
  const grpcDirect = grpcClient(child.grpcPort!);
  const grpcRoute = grpcClient(child.grpcRoutePort!);
  const sides = [
    { name: 'http direct /infer', pid: child.pid, once: () => httpDirect.post('/v2/models/echo/infer', body, headers) },
    { name: 'http fastify route', pid: child.pid, once: () => httpRoute.post('/v2/models/echo/infer', body, headers) },
    { name: 'http node floor', pid: floor.pid, once: () => httpFloor.post('/v2/models/echo/infer', body, headers) },
    { name: 'grpc direct ModelInfer', pid: child.pid, once: grpcDirect.once },
    { name: 'grpc grpc-js handler', pid: child.pid, once: grpcRoute.once },
    { name: 'grpc node floor', pid: floor.pid, once: grpcFloor.once },
  ];
  const window = async ({ once, pid }: (typeof sides)[number], ms: number) => {
    let n = 0;
    const end = performance.now() + ms;
    const t0 = cpuTicks(pid);
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => { while (performance.now() < end) { await once(); n++; } }));
    return { cpuUs: (cpuTicks(pid) - t0) * TICK_US, n, ms };
  };
  const per = new Map<string, { cpuUs: number; perSec: number }[]>();
  try {
    for (const s of sides) await window(s, 500); // warm every path
    for (let round = 0; round < PATH_ROUNDS; round++) {
      for (const s of sides) {
        const w = await window(s, 1000);
        per.set(s.name, [...(per.get(s.name) ?? []), { cpuUs: w.cpuUs / w.n, perSec: (w.n * 1000) / w.ms }]);
      }
    }
  } finally {
    httpDirect.close();
    httpRoute.close();
    httpFloor.close();
    grpcDirect.close();
    grpcRoute.close();
    grpcFloor.close();
    floor.close();
    await child.close();
    rmSync(repo, { recursive: true, force: true });
  }
  const out: Record<string, { serverCpuUsPerRequest: number; perSec: number }> = {};
  console.log(`\nthe direct paths and the framework paths, one server process, ${PATH_ROUNDS} interleaved 1 s windows at c=${CONCURRENCY} (medians):`);
  for (const [name, ws] of per) {
    out[name] = { serverCpuUsPerRequest: median(ws.map((w) => w.cpuUs)), perSec: median(ws.map((w) => w.perSec)) };
    console.log(`${name.padEnd(24)} ${out[name].perSec.toFixed(0).padStart(6)}/s, server CPU ${out[name].serverCpuUsPerRequest.toFixed(1)} µs/req`);
  }
  const ratio = (a: string, b: string) => out[a]!.serverCpuUsPerRequest / out[b]!.serverCpuUsPerRequest;
  console.log(`CPU per request, direct/framework: HTTP ${ratio('http direct /infer', 'http fastify route').toFixed(2)}x, gRPC ${ratio('grpc direct ModelInfer', 'grpc grpc-js handler').toFixed(2)}x`);
  console.log(`CPU per request, direct/node floor: HTTP ${ratio('http direct /infer', 'http node floor').toFixed(2)}x, gRPC ${ratio('grpc direct ModelInfer', 'grpc node floor').toFixed(2)}x`);
  return out;
}

/**
 * bench/lib/floor-server.js in its own process: plain node:http and node:http2 answering the same
 * bytes, no model. What an identity request costs Node's HTTP stacks and the kernel on this machine.
 */
async function spawnFloor(): Promise<{ http: number; grpc: number; pid: number; close(): void }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../lib/floor-server.js', import.meta.url))], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); if (out.includes('\n')) resolve(out); });
    child.once('exit', (code) => reject(new Error(`the floor server exited with code ${code}`)));
  });
  const ports = JSON.parse(line) as { http: number; grpc: number };
  return { ...ports, pid: child.pid!, close: () => child.stdin!.end() };
}

async function runPerf(): Promise<object> {
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
  // BENCH_EDGE_CASES="identity http,identity grpc": only the cases named (a shorter run).
  const only = process.env.BENCH_EDGE_CASES?.split(',').map((x) => x.trim());
  if (only) cases.splice(0, cases.length, ...cases.filter((c) => only.includes(c.name)));
  const servers = BASE ? [{ label: 'base', bin: join(BASE, 'bin/tributary.js') }, { label: 'this', bin: undefined }] : [{ label: 'this', bin: undefined }];
  const repo = writeRepository(models);
  const figures = new Map<string, EdgeFigure[]>();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const { label, bin } of servers) {
        const s = await serveCli(repo, [], bin, PIN?.server);
        try {
          for (const c of cases) {
            const f = await measure(s, c);
            const key = `${c.name} (${label})`;
            figures.set(key, [...(figures.get(key) ?? []), f]);
            const c64 = f.c64 ? `; c=64: ${f.c64.perSec.toFixed(0)}/s, p50 ${f.c64.p50Us} µs, p99 ${f.c64.p99Us} µs (p99/p50 ${(f.c64.p99Us / f.c64.p50Us).toFixed(2)})` : '';
            console.log(`${key.padEnd(30)} round ${round + 1}, c=${CONCURRENCY}: ${f.perSec.toFixed(0).padStart(6)}/s, server CPU ${f.serverCpuUsPerRequest.toFixed(1)} µs/req over ${f.requests} requests${c64}`);
          }
        } finally {
          await s.stop();
        }
      }
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
  const summary: Record<string, { perSec: number; serverCpuUsPerRequest: number; leastServerCpuUsPerRequest: number; c64PerSec?: number; c64P99OverP50?: number }> = {};
  // The least of the rounds too: what other work on the machine does to a round only adds CPU per
  // request (on the 2-core machine the same tree read 103 and 178 µs a minute apart), so the least
  // is the closest reading of the server's own cost; the verdict below stays on the median.
  console.log(`\nmedians (and the least) of ${ROUNDS} round(s):`);
  for (const [key, fs] of figures) {
    const cpus = fs.map((f) => f.serverCpuUsPerRequest);
    const row: (typeof summary)[string] = { perSec: median(fs.map((f) => f.perSec)), serverCpuUsPerRequest: median(cpus), leastServerCpuUsPerRequest: Math.min(...cpus) };
    const c64 = fs.flatMap((f) => (f.c64 ? [f.c64] : []));
    if (c64.length) {
      row.c64PerSec = median(c64.map((f) => f.perSec));
      row.c64P99OverP50 = median(c64.map((f) => f.p99Us / f.p50Us));
    }
    summary[key] = row;
    const more = row.c64PerSec === undefined ? '' : `; c=64 ${row.c64PerSec.toFixed(0)}/s, p99/p50 ${row.c64P99OverP50!.toFixed(2)}`;
    console.log(`${key.padEnd(30)} ${row.perSec.toFixed(0).padStart(6)}/s, server CPU ${row.serverCpuUsPerRequest.toFixed(1)} µs/req (least ${row.leastServerCpuUsPerRequest.toFixed(1)})${more}`);
  }
  if (BASE) {
    for (const c of cases) {
      const a = summary[`${c.name} (base)`]!;
      const b = summary[`${c.name} (this)`]!;
      const c64 = a.c64PerSec && b.c64PerSec ? `, c=64 throughput ${(b.c64PerSec / a.c64PerSec).toFixed(2)}x` : '';
      console.log(`${c.name.padEnd(22)} this/base: CPU per request ${(b.serverCpuUsPerRequest / a.serverCpuUsPerRequest).toFixed(2)}x (least ${(b.leastServerCpuUsPerRequest / a.leastServerCpuUsPerRequest).toFixed(2)}x), throughput ${(b.perSec / a.perSec).toFixed(2)}x${c64}`);
    }
  }
  const cpu = (n: string) => summary[`${n} (this)`]?.serverCpuUsPerRequest ?? Infinity;
  const targets = { 'http identity <= 70 µs/req': cpu('identity http') <= 70, 'grpc identity <= 90 µs/req': cpu('identity grpc') <= 90 };
  console.log(Object.entries(targets).map(([k, ok]) => `${ok ? 'met' : 'MISSED'}: ${k}`).join('\n'));
  return { concurrency: CONCURRENCY, windowMs: WINDOW_MS, rounds: ROUNDS, ...(BASE ? { base: BASE } : {}), summary, targets };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
