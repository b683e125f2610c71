/**
 * gRPC front end: identity FP32[1,16] over gRPC ModelInfer (raw contents) at c=1 and c=64, the
 * same over HTTP with the binary tensor extension, and streamed responses per second over
 * ModelStreamInfer (decoupled TypeScript model, N responses per request).
 * Targets (docs/PERFORMANCE.md): gRPC c=1 p50 <= 200 us, >= 10k infer/s; >= 50k streamed responses/s.
 *
 * The server runs in a child process (bench/lib spawnServer: client and server do not share an
 * event loop), both on this machine's cores.
 *
 *   node --import tsx bench/workloads/grpc.ts [--seconds 3]
 */
import { fileURLToPath } from 'node:url';
import http from 'node:http';
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadProtos } from '../../src/frontend/grpc/index.js';
import { closedLoop, spawnServer, type ClosedLoopRun } from '../lib/index.js';

const REPO = fileURLToPath(new URL('../../test/fixtures/grpc', import.meta.url));

/** A closed loop after 300 ms of serial warm-up (connections, JIT). */
async function measure(seconds: number, concurrency: number, once: () => Promise<unknown>): Promise<ClosedLoopRun> {
  await closedLoop(0.3, 1, once);
  return closedLoop(seconds, concurrency, once);
}

/**
 * Streamed responses over HTTP server-sent events: `streamers` requests of N responses each, in
 * flight at once, re-sent as each stream ends, for `seconds`. Returns events per second.
 */
async function sseRate(port: number, seconds: number, n: number, streamers: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: streamers });
  const body = JSON.stringify({ inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [n] }] });
  let events = 0;
  const one = () => new Promise<void>((resolve, reject) => {
    const r = http.request({
      host: '127.0.0.1', port, path: '/v2/models/streamer/infer', method: 'POST', agent,
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'Content-Length': Buffer.byteLength(body) },
    }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const text = tail + chunk;
        let i = 0;
        for (let j = text.indexOf('\n\n', i); j >= 0; j = text.indexOf('\n\n', i)) {
          if (text.startsWith('data: {"model_name"', i)) events++;
          i = j + 2;
        }
        tail = text.slice(i);
      });
      res.on('end', () => resolve());
    });
    r.on('error', reject);
    r.end(body);
  });
  await one(); // warm-up
  events = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(Array.from({ length: streamers }, async () => {
    while (performance.now() < end) await one();
  }));
  agent.destroy();
  return events / ((performance.now() - t0) / 1000);
}

async function main(): Promise<Record<string, unknown>[]> {
  const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 3;
  const child = await spawnServer({ modelRepository: REPO, grpc: true });
  const httpPort = Number(new URL(child.httpBase).port);
  const pkg = loadPackageDefinition(loadProtos()) as any;
  const client = new pkg.inference.GRPCInferenceService(`127.0.0.1:${child.grpcPort}`, credentials.createInsecure());

  const data = Buffer.from(new Float32Array(16).fill(1.5).buffer);
  const req = { model_name: 'identity_fp32', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16] }], raw_input_contents: [data] };
  const grpcOnce = () => new Promise((resolve, reject) => client.ModelInfer(req, (e: Error | null, r: unknown) => (e ? reject(e) : resolve(r))));

  const header = Buffer.from(JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], parameters: { binary_data_size: 64 } }], outputs: [{ name: 'OUTPUT0', parameters: { binary_data: true } }] }));
  const body = Buffer.concat([header, data]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const httpOnce = () => new Promise((resolve, reject) => {
    const r = http.request({
      host: '127.0.0.1', port: httpPort, path: '/v2/models/identity_fp32/infer', method: 'POST', agent,
      headers: { 'Content-Type': 'application/octet-stream', 'Inference-Header-Content-Length': header.length, 'Content-Length': body.length },
    }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(null) : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    r.on('error', reject);
    r.end(body);
  });

  const rows: Record<string, unknown>[] = [];
  const row = (name: string, r: ClosedLoopRun) => rows.push({ workload: name, 'p50 µs': Math.round(r.p50Us), 'p99 µs': Math.round(r.p99Us), 'infer/s': Math.round(r.perSec) });
  const liveOnce = () => new Promise((resolve, reject) => client.ServerLive({}, (e: Error | null, r: unknown) => (e ? reject(e) : resolve(r))));
  row('grpc ServerLive c=1 (transport floor)', await measure(seconds, 1, liveOnce));
  row('grpc identity c=1', await measure(seconds, 1, grpcOnce));
  row('http-binary identity c=1', await measure(seconds, 1, httpOnce));
  row('grpc identity c=64', await measure(seconds, 64, grpcOnce));
  row('http-binary identity c=64', await measure(seconds, 64, httpOnce));

  // Streamed responses: keep 4 requests of N responses in flight on one stream.
  const N = 2000;
  const stream = client.ModelStreamInfer();
  let responses = 0;
  let finals = 0;
  const nReq = { model_name: 'streamer', inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }], raw_input_contents: [Buffer.from(Int32Array.of(N).buffer)], parameters: { triton_enable_empty_final_response: { bool_param: true } } };
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    stream.on('data', (m: any) => {
      if (m.error_message) throw new Error(m.error_message);
      if (m.infer_response.parameters.triton_final_response?.bool_param) {
        finals++;
        if (performance.now() < end) stream.write(nReq);
        else if (finals === sent) resolve();
      } else {
        responses++;
      }
    });
    let sent = 0;
    for (; sent < 4; sent++) stream.write(nReq);
    const orig = stream.write.bind(stream);
    stream.write = (m: unknown) => { sent++; return orig(m); };
  });
  const secs = (performance.now() - t0) / 1000;
  stream.end();
  rows.push({ workload: `grpc stream, decoupled N=${N}`, 'p50 µs': '-', 'p99 µs': '-', 'infer/s': `${Math.round(responses / secs)} responses/s` });

  const sse = await sseRate(httpPort, seconds, N, 4);
  rows.push({ workload: `http SSE stream, decoupled N=${N}`, 'p50 µs': '-', 'p99 µs': '-', 'infer/s': `${Math.round(sse)} responses/s` });

  console.table(rows);
  client.close();
  agent.destroy();
  await child.close();
  return rows;
}

/** `npm run bench grpc` */
export async function run(): Promise<object> {
  return { rows: await main() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
