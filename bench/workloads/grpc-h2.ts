/**
 * gRPC transport spike (PERFORMANCE.md, "gRPC" and T4): the same server behind the grpc-js front
 * end and behind the lean `node:http2` front end (src/frontend/grpc-h2), measured side by side in
 * one run. W1: identity FP32 [1,16] at c=1 and c=64. W2: identity FP32 [4M] (16 MB each way) at
 * c=1. Clients: @grpc/grpc-js for both servers (the fair comparison: what users run), and a lean
 * `node:http2` client with pre-framed requests, to show where the client is the bottleneck.
 * The decision rule: keep the http2 path only if it beats grpc-js by more than 1.5x on W1 or W2.
 * Outcome (figures in src/frontend/grpc-h2/start-grpc-h2-server.ts): 1.7-2.1x on W1 c=1 p50,
 * 1.2-1.35x on throughput; kept as an opt-in (`--grpc-implementation=http2`), grpc-js the default.
 *
 * Both front ends run in one child process over one Server (bench/lib spawnServer: no shared
 * event loop with the load generator). Windows default shorter than other workloads so the whole run stays under ~30 s.
 *
 *   node --import tsx bench/workloads/grpc-h2.ts      (or: npm run bench grpc-h2)
 */
import { existsSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import { fileURLToPath } from 'node:url';
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadProtos } from '../../src/frontend/grpc/index.js';
import { formatLoad, metricsCpuProbe, runConcurrency, spawnServer, writeRepository, type LoadResult } from '../lib/index.js';

const MODELS = new URL('../../build/models/', import.meta.url).pathname;
const ELEMENTS_4M = 4 * 1024 * 1024;

function repository(): string {
  const ort = existsSync(`${MODELS}identity_fp32.onnx`);
  return writeRepository([
    {
      name: 'identity_fp32',
      config: [
        'name: "identity_fp32"', ort ? 'platform: "onnxruntime_onnx"' : 'backend: "identity"', 'max_batch_size: 64',
        'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]', 'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]',
        'dynamic_batching { }', 'instance_group [ { count: 1 kind: KIND_CPU } ]', '',
      ].join('\n'),
      files: ort ? { '1/model.onnx': { copyFrom: `${MODELS}identity_fp32.onnx` } } : { '1/model.identity': '' },
    },
    {
      name: 'identity_4m',
      config: [
        'name: "identity_4m"', 'platform: "onnxruntime_onnx"', 'max_batch_size: 1',
        `input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ ${ELEMENTS_4M} ] } ]`, `output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ ${ELEMENTS_4M} ] } ]`,
        'instance_group [ { count: 1 kind: KIND_CPU } ]', '',
      ].join('\n'),
      files: { '1/model.onnx': { copyFrom: `${MODELS}identity_4m.onnx` } },
    },
  ]);
}

/** A minimal unary gRPC client on node:http2: pre-framed request, response drained, status checked. */
function leanClient(port: number) {
  const session = http2.connect(`http://127.0.0.1:${port}`, { settings: { initialWindowSize: 8 * 1024 * 1024 } });
  session.on('connect', () => session.setLocalWindowSize(64 * 1024 * 1024));
  session.on('error', () => {});
  const unary = (path: string, framed: Buffer) => new Promise<Buffer>((resolve, reject) => {
    const req = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
    const chunks: Buffer[] = [];
    let status: string | undefined;
    req.on('response', (h) => { if (h['grpc-status'] !== undefined) status = String(h['grpc-status']); });
    req.on('trailers', (h) => { status = String(h['grpc-status']); });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => (status === '0' ? resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)) : reject(new Error(`grpc-status ${status}`))));
    req.on('error', reject);
    req.end(framed);
  });
  return { unary, close: () => session.close() };
}

function grpcJsClient(port: number) {
  const pkg = loadPackageDefinition(loadProtos()) as any;
  const c = new pkg.inference.GRPCInferenceService(`127.0.0.1:${port}`, credentials.createInsecure(), {
    'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1,
  });
  return {
    infer: (req: object) => new Promise<any>((resolve, reject) => c.ModelInfer(req, (e: Error | null, r: unknown) => (e ? reject(e) : resolve(r)))),
    close: () => c.close(),
  };
}

function knobs(heavy: boolean) {
  const num = (k: string, d: number) => (process.env[k] ? Number(process.env[k]) : d);
  return { windowMs: num('BENCH_WINDOW_MS', heavy ? 600 : 500), warmupMs: num('BENCH_WARMUP_MS', heavy ? 200 : 300), maxTrials: num('BENCH_MAX_TRIALS', 3) };
}

export async function run(): Promise<object> {
  const repo = repository();
  const child = await spawnServer({ modelRepository: repo, grpc: ['grpc-js', 'http2'] });
  const cpu = metricsCpuProbe(child.metricsBase);
  const proto = (loadProtos() as any)['inference.GRPCInferenceService'].ModelInfer;
  const frame = (msg: object) => {
    const body: Buffer = proto.requestSerialize(msg);
    const f = Buffer.alloc(5 + body.length);
    f.writeUInt32BE(body.length, 1);
    body.copy(f, 5);
    return f;
  };

  const small = Buffer.from(Float32Array.from({ length: 16 }, (_, i) => i / 16).buffer);
  const big = Buffer.from(Float32Array.from({ length: ELEMENTS_4M }, (_, i) => i % 1000).buffer);
  const request = (model: string, data: Buffer, shape: number[]) => ({
    model_name: model, inputs: [{ name: 'INPUT0', datatype: 'FP32', shape }], raw_input_contents: [data],
  });
  const w1 = request('identity_fp32', small, [1, 16]);
  const w2 = request('identity_4m', big, [1, ELEMENTS_4M]);
  const w1Frame = frame(w1);
  const w2Frame = frame(w2);
  const PATH = '/inference.GRPCInferenceService/ModelInfer';

  const servers = { 'grpc-js': child.grpcPorts['grpc-js']!, http2: child.grpcPorts.http2! } as const;
  const clients = Object.fromEntries(Object.entries(servers).map(([k, p]) => [k, { js: grpcJsClient(p), lean: leanClient(p) }]));
  const results: Record<string, LoadResult> = {};
  try {
    // Both servers answer the same bytes (checked once, through both clients).
    for (const [name, c] of Object.entries(clients)) {
      const r = await c.js.infer(w2);
      if (!Buffer.from(r.raw_output_contents[0]).equals(big)) throw new Error(`${name} server: identity_4m returned different data`);
      const lean = await c.lean.unary(PATH, w1Frame);
      if (!lean.subarray(lean.length - 64).equals(small)) throw new Error(`${name} server: identity_fp32 returned different data (lean client)`);
    }
    const cases = [
      { id: 'W1', c: 1, heavy: false, js: () => w1, lean: w1Frame },
      { id: 'W1', c: 64, heavy: false, js: () => w1, lean: w1Frame },
      { id: 'W2', c: 1, heavy: true, js: () => w2, lean: w2Frame },
    ];
    for (const k of cases) {
      for (const client of ['js', 'lean'] as const) {
        for (const server of Object.keys(servers)) {
          const c = clients[server]!;
          const send = client === 'js' ? () => c.js.infer(k.js()) : () => c.lean.unary(PATH, k.lean);
          const r = await runConcurrency({ concurrency: k.c, ...knobs(k.heavy), serverCpuSeconds: cpu, send });
          const label = `${k.id} ${server} srv/${client === 'js' ? 'grpc-js' : 'h2'} cli`;
          results[`${k.id}@c${k.c} ${server} ${client}`] = r;
          console.log(formatLoad(label, r));
        }
      }
    }
  } finally {
    for (const c of Object.values(clients)) { c.js.close(); c.lean.close(); }
    await child.close();
    rmSync(repo, { recursive: true, force: true });
  }

  const ratio = (key: string, f: (r: LoadResult) => number) => f(results[`${key} http2 js`]!) / f(results[`${key} grpc-js js`]!);
  const ratios = {
    'W1 c=1 p50 grpc-js/http2 (grpc-js client)': 1 / ratio('W1@c1', (r) => r.p50Us),
    'W1 c=64 infer/s http2/grpc-js (grpc-js client)': ratio('W1@c64', (r) => r.throughput),
    'W2 c=1 infer/s http2/grpc-js (grpc-js client)': ratio('W2@c1', (r) => r.throughput),
    'W1 c=64 server CPU/req grpc-js/http2 (grpc-js client)': 1 / ratio('W1@c64', (r) => r.serverCpuUsPerRequest ?? NaN),
    'W1 c=64 infer/s http2/grpc-js (h2 client)': results['W1@c64 http2 lean']!.throughput / results['W1@c64 grpc-js lean']!.throughput,
    'W2 c=1 infer/s http2/grpc-js (h2 client)': results['W2@c1 http2 lean']!.throughput / results['W2@c1 grpc-js lean']!.throughput,
  };
  for (const [k, v] of Object.entries(ratios)) console.log(`${k}: ${v.toFixed(2)}x`);
  const wins = Object.entries(ratios).filter(([k]) => k.includes('(grpc-js client)') && !k.includes('CPU')).some(([, v]) => v > 1.5);
  console.log(`decision rule (> 1.5x on W1 or W2 with the grpc-js client): ${wins ? 'http2 WINS' : 'http2 does not win'}`);
  return { results, ratios, http2Wins: wins };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
