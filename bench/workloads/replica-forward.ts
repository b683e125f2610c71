/**
 * The cost of relaying a sequence request to the replica that owns it under `serve --replicas 2`,
 * side by side with the same request answered where it arrived, and with a plain (non-sequence)
 * request on the same connection. One kept-alive HTTP connection (so one receiving replica), c=1,
 * the three kinds interleaved request by request so that machine load hits them alike. Then, in
 * this process, a plain request to an HTTP front end without sequence forwarding (a single
 * server's) and to one with it installed (a replica's shared port), alternated.
 *   npm run bench replica-forward; BENCH_FORWARD_N=<requests of each kind per round> (default 1000)
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { writeRepository } from '../lib/index.js';
import { createServer } from '../../src/server/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { createSequenceOwners } from '../../src/frontend/forward/index.js';

const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../test/fixtures/sequence/accumulator_ts/', import.meta.url));
const N = Number(process.env.BENCH_FORWARD_N ?? 1000);
const ROUNDS = 3;

const ECHO = `name: "echo"
backend: "identity"
max_batch_size: 8
input [ { name: "INPUT" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "OUTPUT" data_type: TYPE_FP32 dims: [ 1 ] } ]
`;

function serve(repo: string): Promise<{ http: number; stop(): Promise<unknown> }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--model-repository', repo, '--replicas', '2',
    '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0', '--http-address', '127.0.0.1', '--grpc-address', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise((r) => child.on('close', r));
  return new Promise((resolve, reject) => {
    const check = (d: Buffer) => {
      out += d.toString();
      if (!/\/v2\/health\/ready is/.test(out)) return;
      resolve({ http: Number(/HTTP \(KServe v2\) listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1]), stop: () => { child.kill('SIGTERM'); return exited; } });
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exited.then((c) => reject(new Error(`serve exited ${c}:\n${out}`)));
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function post(port: number, model: string, parameters: object, via = agent): Promise<{ ms: number; pid: number; status: number }> {
  const body = JSON.stringify({ parameters, inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1], data: [1] }] });
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: `/v2/models/${model}/infer`, agent: via, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - t0, pid: Number(res.headers['tributary-replica']), status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

export interface ForwardReport { round: number; kind: string; p50Ms: number; p90Ms: number }

export async function run(): Promise<ForwardReport[]> {
  const repo = writeRepository([
    { name: 'echo', config: ECHO },
    { name: 'accumulator_ts', config: readFileSync(`${FIXTURE}config.pbtxt`, 'utf8'), files: { '1/model.ts': readFileSync(`${FIXTURE}1/model.ts`, 'utf8') } },
  ]);
  const s = await serve(repo);
  const reports: ForwardReport[] = [];
  try {
    const here = (await post(s.http, 'echo', {})).pid;
    // A sequence this connection's replica owns, and one the other replica owns.
    let direct: number | undefined;
    let forwarded: number | undefined;
    for (let id = 1; direct === undefined || forwarded === undefined; id++) {
      const r = await post(s.http, 'accumulator_ts', { sequence_id: id, sequence_start: true });
      if (r.pid === here) direct ??= id;
      else forwarded ??= id;
    }
    const kinds: [string, () => ReturnType<typeof post>][] = [
      ['plain request (echo)', () => post(s.http, 'echo', {})],
      ['sequence, owned here', () => post(s.http, 'accumulator_ts', { sequence_id: direct })],
      ['sequence, forwarded', () => post(s.http, 'accumulator_ts', { sequence_id: forwarded })],
    ];
    for (let round = 1; round <= ROUNDS; round++) {
      const ms = kinds.map(() => [] as number[]);
      for (let i = 0; i < N; i++) {
        for (const [k, [, send]] of kinds.entries()) {
          const r = await send();
          if (r.status !== 200) throw new Error(`${kinds[k]![0]}: HTTP ${r.status}`);
          ms[k]!.push(r.ms);
        }
      }
      for (const [k, [kind]] of kinds.entries()) {
        const rep = { round, kind, p50Ms: +pct(ms[k]!, 0.5).toFixed(3), p90Ms: +pct(ms[k]!, 0.9).toFixed(3) };
        reports.push(rep);
        console.log(`round ${round}: ${kind.padEnd(22)} p50 ${rep.p50Ms} ms, p90 ${rep.p90Ms} ms`);
      }
      const [plain, own, fwd] = reports.slice(-3);
      console.log(`round ${round}: forwarded / owned p50 = ${(fwd!.p50Ms / own!.p50Ms).toFixed(2)}, +${(fwd!.p50Ms - own!.p50Ms).toFixed(3)} ms; plain ${plain!.p50Ms} ms`);
    }
  } finally {
    agent.destroy();
    await s.stop();
  }
  try {
    reports.push(...(await plainPath(repo)));
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
  return reports;
}

/** A plain request's p50 through a front end without forwarding and one with it, same server, alternated. */
async function plainPath(repo: string): Promise<ForwardReport[]> {
  const server = await createServer({ modelRepository: repo });
  const single = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  const replica = await startHttpServer(server, { port: 0, host: '127.0.0.1', sequenceOwners: createSequenceOwners(1, 2) });
  const agents = [new Agent({ keepAlive: true, maxSockets: 1 }), new Agent({ keepAlive: true, maxSockets: 1 })];
  const out: ForwardReport[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const ms: number[][] = [[], []];
      for (let i = 0; i < N; i++) {
        ms[0]!.push((await post(single.port, 'echo', {}, agents[0])).ms);
        ms[1]!.push((await post(replica.port, 'echo', {}, agents[1])).ms);
      }
      const [a, b] = ['plain, no forwarding', 'plain, forwarding on'].map((kind, k) => ({ round, kind, p50Ms: +pct(ms[k]!, 0.5).toFixed(3), p90Ms: +pct(ms[k]!, 0.9).toFixed(3) }));
      out.push(a!, b!);
      console.log(`round ${round} (in process): plain request p50 ${a!.p50Ms} ms without forwarding, ${b!.p50Ms} ms with it installed (ratio ${(b!.p50Ms / a!.p50Ms).toFixed(2)})`);
    }
  } finally {
    for (const a of agents) a.destroy();
    await single.close();
    await replica.close();
    await server.close();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
