/**
 * `tributary serve --replicas N` for N = 1 and 2, run as users run it (bin/tributary.js), with
 * `tributary perf` as the client in its own process: throughput of an identity model and of the
 * langid pipeline, how node:cluster spreads new connections, start time and RSS per process.
 * Variants alternate (1, 2, 1, 2) in one run; compare ratios within it.
 *   npm run bench replicas; BENCH_REPLICAS_MS=<window ms> (default 3000), BENCH_REPLICAS_C=<concurrency> (default 16)
 */
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeRepository } from '../lib/index.js';

const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));
const WINDOW_MS = Number(process.env.BENCH_REPLICAS_MS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_REPLICAS_C ?? 16);

const ECHO = `name: "echo"
backend: "identity"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 16 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 16 ] } ]
`;

function repository(): string {
  const repo = writeRepository([{ name: 'echo', config: ECHO }]);
  for (const name of ['langid', 'langid_featurize', 'langid_mlp', 'langid_topk']) cpSync(join('pipelines', name), join(repo, name), { recursive: true });
  return repo;
}

interface Running { http: number; pids: number[]; startMs: number; replicaStartMs: number[]; stop(): Promise<number | null> }

function serve(repo: string, replicas: number): Promise<Running> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve', '--model-repository', repo, '--replicas', String(replicas),
    '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0', '--http-address', '127.0.0.1', '--grpc-address', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  return new Promise((resolve, reject) => {
    const check = (d: Buffer) => {
      out += d.toString();
      if (!/\/v2\/health\/ready is/.test(out)) return;
      child.stdout.off('data', check);
      child.stderr.off('data', check);
      const line = /replicas sharing[^\n]*/.exec(out)?.[0] ?? '';
      const replicaPids = [...line.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));
      resolve({
        http: Number(/HTTP \(KServe v2\) listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1]),
        pids: [child.pid!, ...replicaPids],
        startMs: performance.now() - t0,
        replicaStartMs: [...line.matchAll(/started in (\d+) ms/g)].map((m) => Number(m[1])),
        stop: () => { child.kill('SIGTERM'); return exited; },
      });
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exited.then((c) => reject(new Error(`serve --replicas ${replicas} exited ${c}:\n${out}`)));
  });
}

function perf(port: number, model: string, extra: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'perf', '-m', model, '-u', `127.0.0.1:${port}`, '--concurrency-range', String(CONCURRENCY),
      '-p', String(WINDOW_MS), ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => {
      const m = /Throughput: ([\d,.]+) infer\/sec/.exec(out);
      if (code !== 0 || !m) reject(new Error(`perf -m ${model} exited ${code}:\n${out}`));
      else resolve(Number(m[1]!.replace(/,/g, '')));
    });
  });
}

/** The replica pid that answered one request on a new connection. */
function whoAnswers(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v2/health/live', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(Number(res.headers['tributary-replica'] ?? 0)));
    });
    req.on('error', reject);
    req.end();
  });
}

/** New connections per replica: 100 one after another, then 100 in bursts of 10 at once. */
async function connectionSpread(port: number): Promise<{ sequential: number[]; bursts: number[] }> {
  const count = (pids: number[]) => [...pids.reduce((m, p) => m.set(p, (m.get(p) ?? 0) + 1), new Map<number, number>()).values()].sort((a, b) => b - a);
  const sequential: number[] = [];
  for (let i = 0; i < 100; i++) sequential.push(await whoAnswers(port));
  const bursts: number[] = [];
  for (let i = 0; i < 10; i++) bursts.push(...(await Promise.all(Array.from({ length: 10 }, () => whoAnswers(port)))));
  return { sequential: count(sequential), bursts: count(bursts) };
}

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

export interface ReplicasReport {
  replicas: number; round: number; startMs: number; replicaStartMs: number[];
  echoPerSec: number; langidPerSec: number; rssMb: number[]; spread?: { sequential: number[]; bursts: number[] };
}

export async function run(): Promise<ReplicasReport[]> {
  const repo = repository();
  const reports: ReplicasReport[] = [];
  try {
    for (const round of [1, 2]) {
      for (const replicas of [1, 2]) {
        const s = await serve(repo, replicas);
        try {
          const echoPerSec = await perf(s.http, 'echo', ['-b', '1']);
          const langidPerSec = await perf(s.http, 'langid', []);
          const spread = replicas > 1 ? await connectionSpread(s.http) : undefined;
          const r: ReplicasReport = {
            replicas, round, startMs: Math.round(s.startMs), replicaStartMs: s.replicaStartMs,
            echoPerSec, langidPerSec, rssMb: s.pids.map(rssMb), ...(spread ? { spread } : {}),
          };
          reports.push(r);
          console.log(`replicas=${replicas} round ${round}: echo ${echoPerSec.toFixed(0)}/s, langid ${langidPerSec.toFixed(0)}/s (c=${CONCURRENCY}); `
            + `start ${r.startMs} ms${r.replicaStartMs.length ? ` (replicas ${r.replicaStartMs.join(', ')} ms)` : ''}; RSS MB ${r.rssMb.join(' + ')}`
            + (spread ? `; new connections per replica: sequential ${spread.sequential.join('/')}, bursts of 10 ${spread.bursts.join('/')}` : ''));
        } finally {
          await s.stop();
        }
      }
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
  return reports;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
