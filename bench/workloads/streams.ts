/**
 * Streamed responses and backpressure: a decoupled TypeScript model asked for N responses per
 * request on S streams at once (BENCH_STREAMS, default 30; BENCH_STREAM_N, default 20000).
 *
 * - never read, gRPC: raw HTTP/2 sessions whose stream window is 0, so the server can send no
 *   DATA; the server's RSS growth over BENCH_SOAK_S seconds (default 5), then again 3 s after the
 *   streams are reset (what the cancel returned);
 * - never read, SSE: the same over HTTP with paused responses (TCP fills, then the server buffers);
 * - reading, gRPC (grpc-js, one stream per request) and SSE: responses received and responses/s.
 *
 * Each runs twice: with a script that sends in a plain loop and one that awaits each send
 * (BENCH_STREAM_CASES=a,b runs the cases whose "model case" name contains a or b). The server runs
 * in a child process (bench/lib spawnServer); RSS is its VmRSS. A reading client stops a stream at
 * its first error (a stream that overflowed).
 *
 *   npm run bench streams
 */
import http from 'node:http';
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadProtos } from '../../src/frontend/grpc/index.js';
import { spawnServer, writeRepository, type ServerProcess } from '../lib/index.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 30);
const N = Number(process.env.BENCH_STREAM_N ?? 20_000);
const SOAK_S = Number(process.env.BENCH_SOAK_S ?? 5);
const READ_LIMIT_S = 60;

const config = (name: string) => [
  `name: "${name}"`, 'backend: "typescript"', 'max_batch_size: 0',
  'input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  'output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  'model_transaction_policy { decoupled: true }',
  'parameters { key: "response_timeout_ms" value: { string_value: "600000" } }', '',
].join('\n');

/**
 * The loop sends inside execute() without waiting. The awaiting one sends from a task of its own
 * (execute() returns at once, so the model's one instance serves every stream at the same time)
 * and awaits each send, so it waits for its client.
 */
const script = (awaiting: boolean) => awaiting
  ? `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): void {
    for (const r of requests) {
      const sender = r.responseSender();
      const n = (r.input('N').data as Int32Array)[0]!;
      void (async () => {
        for (let i = 0; i < n; i++) await sender.send(new InferenceResponse({ outputs: [new Tensor('OUT', 'INT32', [1], [i])] }));
        await sender.send(undefined, { final: true });
      })().catch(() => {});
    }
  }
}
`
  : `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): void {
    for (const r of requests) {
      const sender = r.responseSender();
      const n = (r.input('N').data as Int32Array)[0]!;
      for (let i = 0; i < n; i++) sender.send(new InferenceResponse({ outputs: [new Tensor('OUT', 'INT32', [1], [i])] }));
      sender.send(undefined, { final: true });
    }
  }
}
`;

function rssMiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sample the server's RSS every 100 ms for `ms`; the highest value. */
async function peakOver(pid: number, ms: number): Promise<number> {
  let peak = rssMiB(pid);
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await sleep(100);
    peak = Math.max(peak, rssMiB(pid));
  }
  return peak;
}

const pkg = loadPackageDefinition(loadProtos()) as any;
const requestSerialize = pkg.inference.GRPCInferenceService.service.ModelStreamInfer.requestSerialize as (m: unknown) => Buffer;

function grpcFrame(model: string, n: number): Buffer {
  const msg = requestSerialize({ model_name: model, inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }], raw_input_contents: [Buffer.from(Int32Array.of(n).buffer)] });
  const head = Buffer.alloc(5);
  head.writeUInt32BE(msg.length, 1);
  return Buffer.concat([head, msg]);
}

/** Never-reading gRPC streams: the stream window is 0, so no response DATA can leave the server. */
async function grpcNeverRead(server: ServerProcess, model: string): Promise<Record<string, unknown>> {
  const pid = server.pid;
  const before = rssMiB(pid);
  const sessions: http2.ClientHttp2Session[] = [];
  const streams: http2.ClientHttp2Stream[] = [];
  for (let i = 0; i < STREAMS; i++) {
    if (i % 10 === 0) sessions.push(http2.connect(`http://127.0.0.1:${server.grpcPort}`, { settings: { initialWindowSize: 0 } }));
    const s = sessions[sessions.length - 1]!.request({ ':method': 'POST', ':path': '/inference.GRPCInferenceService/ModelStreamInfer', 'content-type': 'application/grpc', te: 'trailers' });
    s.on('error', () => {});
    s.write(grpcFrame(model, N));
    streams.push(s);
  }
  const peak = await peakOver(pid, SOAK_S * 1000);
  const held = rssMiB(pid);
  for (const s of streams) s.close(http2.constants.NGHTTP2_CANCEL);
  for (const s of sessions) s.destroy();
  await sleep(3000);
  const after = rssMiB(pid);
  return { 'peak growth MiB': Math.round(peak - before), [`growth at ${SOAK_S} s MiB`]: Math.round(held - before), 'growth 3 s after cancel MiB': Math.round(after - before) };
}

/** Never-reading SSE requests: each response is paused, so TCP fills and the server holds the rest. */
async function sseNeverRead(server: ServerProcess, model: string): Promise<Record<string, unknown>> {
  const pid = server.pid;
  const before = rssMiB(pid);
  const url = new URL(server.httpBase);
  const body = JSON.stringify({ inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [N] }] });
  const reqs: http.ClientRequest[] = [];
  for (let i = 0; i < STREAMS; i++) {
    const r = http.request({
      host: url.hostname, port: url.port, path: `/v2/models/${model}/infer`, method: 'POST', agent: false,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) },
    }, (res) => res.pause());
    r.on('error', () => {});
    r.end(body);
    reqs.push(r);
  }
  const peak = await peakOver(pid, SOAK_S * 1000);
  const held = rssMiB(pid);
  for (const r of reqs) r.destroy();
  await sleep(3000);
  const after = rssMiB(pid);
  return { 'peak growth MiB': Math.round(peak - before), [`growth at ${SOAK_S} s MiB`]: Math.round(held - before), 'growth 3 s after cancel MiB': Math.round(after - before) };
}

/** Reading gRPC clients: one grpc-js stream per request, all at once; responses and responses/s. */
async function grpcRead(server: ServerProcess, model: string): Promise<Record<string, unknown>> {
  const client = new pkg.inference.GRPCInferenceService(`127.0.0.1:${server.grpcPort}`, credentials.createInsecure());
  const t0 = performance.now();
  let received = 0;
  let inOrder = true;
  let errors = 0;
  await Promise.all(Array.from({ length: STREAMS }, () => new Promise<void>((resolve) => {
    const call = client.ModelStreamInfer();
    let next = 0;
    const timer = setTimeout(() => { call.cancel(); resolve(); }, READ_LIMIT_S * 1000);
    call.on('data', (m: any) => {
      if (m.error_message) { errors++; clearTimeout(timer); call.cancel(); resolve(); return; }
      const v = Buffer.from(m.infer_response.raw_output_contents[0]).readInt32LE(0);
      if (v !== next) inOrder = false;
      next++;
      received++;
      if (next === N) { clearTimeout(timer); call.end(); resolve(); }
    });
    call.on('error', () => { clearTimeout(timer); resolve(); });
    call.write({ model_name: model, inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }], raw_input_contents: [Buffer.from(Int32Array.of(N).buffer)] });
  })));
  const secs = (performance.now() - t0) / 1000;
  client.close();
  return { received: `${received}/${STREAMS * N}`, 'in order': inOrder, errors, 'responses/s': Math.round(received / secs), seconds: Math.round(secs * 10) / 10 };
}

/** Reading SSE clients: one request each, all at once. */
async function sseRead(server: ServerProcess, model: string): Promise<Record<string, unknown>> {
  const url = new URL(server.httpBase);
  const body = JSON.stringify({ inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [N] }] });
  const t0 = performance.now();
  let received = 0;
  let errors = 0;
  await Promise.all(Array.from({ length: STREAMS }, () => new Promise<void>((resolve) => {
    const r = http.request({
      host: url.hostname, port: url.port, path: `/v2/models/${model}/infer`, method: 'POST', agent: false,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const text = tail + chunk;
        let i = 0;
        for (let j = text.indexOf('\n\n', i); j >= 0; j = text.indexOf('\n\n', i)) {
          if (text.startsWith('data: {"model_name"', i)) received++;
          else if (text.startsWith('data: {"error"', i)) errors++;
          i = j + 2;
        }
        tail = text.slice(i);
      });
      res.on('end', () => resolve());
    });
    const timer = setTimeout(() => { r.destroy(); resolve(); }, READ_LIMIT_S * 1000);
    r.on('close', () => clearTimeout(timer));
    r.on('error', () => resolve());
    r.end(body);
  })));
  const secs = (performance.now() - t0) / 1000;
  return { received: `${received}/${STREAMS * N}`, errors, 'responses/s': Math.round(received / secs), seconds: Math.round(secs * 10) / 10 };
}

async function main(): Promise<Record<string, unknown>[]> {
  const repo = writeRepository([
    { name: 'loop_sender', config: config('loop_sender'), files: { '1/model.ts': script(false) } },
    { name: 'await_sender', config: config('await_sender'), files: { '1/model.ts': script(true) } },
  ]);
  const rows: Record<string, unknown>[] = [];
  const only = process.env.BENCH_STREAM_CASES?.split(',');
  for (const model of ['loop_sender', 'await_sender']) {
    for (const [name, f] of [['grpc never read', grpcNeverRead], ['sse never read', sseNeverRead], ['grpc reading', grpcRead], ['sse reading', sseRead]] as const) {
      if (only && !only.some((o) => `${model} ${name}`.includes(o))) continue;
      // A fresh server per case: RSS growth is then this case's alone.
      const server = await spawnServer({ modelRepository: repo, grpc: true });
      await sleep(500);
      const rest = Math.round(rssMiB(server.pid));
      try {
        const r = await f(server, model);
        rows.push({ model, case: `${name}, ${STREAMS} x ${N}`, 'rest RSS MiB': rest, ...r });
        console.log(JSON.stringify(rows[rows.length - 1]));
      } finally {
        await server.close();
      }
    }
  }
  console.table(rows);
  return rows;
}

/** `npm run bench streams` */
export async function run(): Promise<object> {
  return { streams: STREAMS, n: N, soakSeconds: SOAK_S, rows: await main() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
