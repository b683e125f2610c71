/**
 * `tributary serve --replicas N` for N = 1 and 2, run as users run it (bin/tributary.js), with
 * `tributary perf` as the client in its own process: throughput of an identity model and of the
 * langid pipeline, how node:cluster spreads new connections, start time and RSS per process.
 * Variants alternate (1, 2, 1, 2) in one run; compare ratios within it.
 *   npm run bench replicas; BENCH_REPLICAS_MS=<window ms> (default 3000), BENCH_REPLICAS_C=<concurrency> (default 16)
 */
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { perfCli, serveCli, writeRepository } from '../lib/index.js';

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

function perf(port: number, model: string, extra: string[]): Promise<number> {
  return perfCli(['-m', model, '-u', `127.0.0.1:${port}`, '--concurrency-range', String(CONCURRENCY), '-p', String(WINDOW_MS), ...extra]).then((r) => r.perSec);
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
        const s = await serveCli(repo, ['--replicas', String(replicas)]);
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
