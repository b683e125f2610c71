/**
 * W1 (docs/PERFORMANCE.md): identity FP32 [1,16] at c=1 and c=64, over http-json and http-binary
 * against bare in-process `server.infer` in the same run. The server runs in a child process; the
 * in-process baseline runs in this one. Uses the ORT identity model when build/models has it,
 * else the pure-JS identity backend. Targets T1 (c=1 p50), T3 (c=64 throughput), T13 (CPU/req).
 * W2: identity FP32 [1,4M] (16 MB each way) over http-binary at c=1 and c=4 (target T10); GB/s
 * counts both directions. `BENCH_HTTP=W1` or `BENCH_HTTP=W2` runs one of the two.
 */
import { existsSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { lastValueFrom } from 'rxjs';
import { createServer } from '../../src/server/index.js';
import { setLogSink } from '../../src/logger.js';
import { decodeInferResponse, encodeInferRequest } from '../../src/protocol/index.js';
import { createTensor } from '../../src/tensor/index.js';
import {
  benchKnobs, createHttpPoster, formatLoad, metricsCpuProbe, runConcurrency, spawnServer, writeRepository, type LoadResult,
} from '../lib/index.js';

const ORT_MODEL = new URL('../../build/models/identity_fp32.onnx', import.meta.url).pathname;
const ORT_4M = new URL('../../build/models/identity_4m.onnx', import.meta.url).pathname;
const CONCURRENCY = [1, 64];
const W2_CONCURRENCY = [1, 4];
const ELEMENTS_4M = 4 * 1024 * 1024;

function identityConfig(onnx: boolean): string {
  return [
    'name: "identity_fp32"',
    onnx ? 'platform: "onnxruntime_onnx"' : 'backend: "identity"',
    'max_batch_size: 64',
    'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]',
    'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]',
    'dynamic_batching { }',
    'instance_group [ { count: 1 kind: KIND_CPU } ]', '',
  ].join('\n');
}

export async function run(): Promise<object> {
  const only = process.env.BENCH_HTTP;
  const out: Record<string, object> = {};
  if (only !== 'W2') out.W1 = await runW1();
  if (only !== 'W1') {
    if (existsSync(ORT_4M)) out.W2 = await runW2();
    else console.log(`W2 skipped: ${ORT_4M} is missing (npm run build-models)`);
  }
  return out;
}

/**
 * A W2 client slot: keep-alive socket, and one response buffer reused across requests, filled
 * from Content-Length (perf_analyzer reuses buffers too). A chunk list + concat per 16 MB response
 * doubled the client's allocations, and the client shares the 2 cores with the server.
 */
function createLargeBodyPoster(base: string, slots: number) {
  const url = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets: slots, maxFreeSockets: slots });
  const free: Buffer[] = [];
  const post = (path: string, body: Buffer, headers: Record<string, string | number>) => new Promise<number>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'POST', agent, headers: { 'content-length': body.byteLength, ...headers } }, (res) => {
      const size = Number(res.headers['content-length']);
      let buf = free.pop();
      if (!buf || buf.byteLength < size) buf = Buffer.allocUnsafeSlow(size);
      let p = 0;
      res.on('data', (c: Buffer) => { buf.set(c, p); p += c.length; });
      res.on('end', () => {
        free.push(buf);
        if ((res.statusCode ?? 0) >= 300 || p !== size) reject(new Error(`HTTP ${res.statusCode}, ${p} of ${size} bytes`));
        else resolve(p);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
  return { post, close: () => agent.destroy() };
}

/** W2: the large-tensor copy path, one 16 MB tensor in and out per request. */
export async function runW2(): Promise<object> {
  const repo = writeRepository([{
    name: 'identity_4m',
    config: [
      'name: "identity_4m"', 'platform: "onnxruntime_onnx"', 'max_batch_size: 1',
      `input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ ${ELEMENTS_4M} ] } ]`,
      `output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ ${ELEMENTS_4M} ] } ]`,
      'instance_group [ { count: 1 kind: KIND_CPU } ]', '',
    ].join('\n'),
    files: { '1/model.onnx': { copyFrom: ORT_4M } },
  }]);
  // Large bodies: shorter windows keep the run short; the stability rule is the same.
  const knobs = { ...benchKnobs(), ...(process.env.BENCH_WINDOW_MS ? {} : { windowMs: 1000, warmupMs: 300, maxTrials: 4 }) };
  const input = createTensor('INPUT0', 'FP32', [1, ELEMENTS_4M], Float32Array.from({ length: ELEMENTS_4M }, (_, i) => i % 1000));
  const child = await spawnServer({ modelRepository: repo });
  const client = createHttpPoster(child.httpBase, 8);
  const lean = createLargeBodyPoster(child.httpBase, Math.max(...W2_CONCURRENCY));
  const cpu = metricsCpuProbe(child.metricsBase);
  const results: Record<string, LoadResult & { gbPerS: number }> = {};
  try {
    const bin = encodeInferRequest({ inputs: [input], parameters: { binary_data_output: true } }, { binary: true });
    const body = bin.body as Buffer;
    const headers = { 'inference-header-content-length': bin.headerLength!, 'content-type': 'application/octet-stream' };
    const path = '/v2/models/identity_4m/infer';
    const res = await client.post(path, body, headers);
    const out = decodeInferResponse(res.body, Number(res.headers['inference-header-content-length']));
    const sent = input.data as Float32Array;
    const got = out.outputs[0]!.data as Float32Array;
    if (got.length !== sent.length || Buffer.compare(Buffer.from(got.buffer, got.byteOffset, got.byteLength), Buffer.from(sent.buffer)) !== 0) {
      throw new Error('identity_4m returned different data');
    }
    for (const c of W2_CONCURRENCY) {
      const r = await runConcurrency({ concurrency: c, ...knobs, serverCpuSeconds: cpu, send: () => lean.post(path, body, headers) });
      // Request and response each carry the 16 MB tensor.
      const gbPerS = (r.throughput * 2 * sent.byteLength) / 1e9;
      results[`http-binary@c${c}`] = { ...r, gbPerS };
      console.log(`${formatLoad('W2 http-binary 16MB', r)}  ${gbPerS.toFixed(2)} GB/s`);
    }
  } finally {
    lean.close();
    client.close();
    await child.close();
    rmSync(repo, { recursive: true, force: true });
  }
  const c1 = results['http-binary@c1']!;
  const targets = {
    'T10 W2 http-binary c=1 p50 <= 35 ms': c1.p50Us <= 35_000,
    'T10 W2 http-binary >= 1 GB/s (c=1)': c1.gbPerS >= 1,
  };
  for (const [k, ok] of Object.entries(targets)) console.log(`${ok ? 'MET ' : 'MISS'} ${k}`);
  return { model: 'onnxruntime identity_4m', knobs, results, targets };
}

async function runW1(): Promise<object> {
  const onnx = existsSync(ORT_MODEL);
  const repo = writeRepository([{
    name: 'identity_fp32', config: identityConfig(onnx),
    files: onnx ? { '1/model.onnx': { copyFrom: ORT_MODEL } } : { '1/model.identity': '' },
  }]);
  const knobs = benchKnobs();
  const input = createTensor('INPUT0', 'FP32', [1, 16], Array.from({ length: 16 }, (_, i) => i / 16));
  const results: Record<string, LoadResult> = {};
  const print = (label: string, r: LoadResult) => {
    results[`${label}@c${r.concurrency}`] = r;
    console.log(formatLoad(label, r));
  };

  // In-process baseline (the C-API equivalent).
  setLogSink(() => {});
  const local = await createServer({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
  try {
    for (const c of CONCURRENCY) {
      print('inproc', await runConcurrency({ concurrency: c, ...knobs, send: () => lastValueFrom(local.infer({ model: 'identity_fp32', inputs: [input] })) }));
    }
  } finally {
    await local.close();
  }

  const child = await spawnServer({ modelRepository: repo });
  const client = createHttpPoster(child.httpBase, 64);
  const cpu = metricsCpuProbe(child.metricsBase);
  try {
    const json = Buffer.from(encodeInferRequest({ inputs: [input] }).body as string);
    const bin = encodeInferRequest({ inputs: [input], parameters: { binary_data_output: true } }, { binary: true });
    const binBody = bin.body as Buffer;
    const binHeaders = { 'inference-header-content-length': bin.headerLength!, 'content-type': 'application/octet-stream' };
    const path = '/v2/models/identity_fp32/infer';
    // Check both encodings once before measuring.
    for (const [body, headers] of [[json, { 'content-type': 'application/json' }], [binBody, binHeaders]] as const) {
      const res = await client.post(path, body, headers);
      const hl = res.headers['inference-header-content-length'];
      const out = decodeInferResponse(res.body, hl === undefined ? undefined : Number(hl));
      if (Array.from(out.outputs[0]!.data as Float32Array).join() !== Array.from(input.data as Float32Array).join()) {
        throw new Error('identity_fp32 returned different data');
      }
    }
    for (const c of CONCURRENCY) {
      print('http-json', await runConcurrency({ concurrency: c, ...knobs, serverCpuSeconds: cpu, send: () => client.post(path, json, { 'content-type': 'application/json' }) }));
      print('http-binary', await runConcurrency({ concurrency: c, ...knobs, serverCpuSeconds: cpu, send: () => client.post(path, binBody, binHeaders) }));
    }
  } finally {
    client.close();
    await child.close();
    rmSync(repo, { recursive: true, force: true });
  }

  const r = (k: string) => results[k]!;
  const ratios = {
    R1_json_c64: r('http-json@c64').throughput / r('inproc@c64').throughput,
    R1_binary_c64: r('http-binary@c64').throughput / r('inproc@c64').throughput,
    R2_json_overhead_us: r('http-json@c1').p50Us - r('inproc@c1').p50Us,
    R2_binary_overhead_us: r('http-binary@c1').p50Us - r('inproc@c1').p50Us,
    R8_json_over_binary_c64: r('http-json@c64').throughput / r('http-binary@c64').throughput,
  };
  const targets = {
    'T1 http-binary c=1 p50 <= 70 µs': r('http-binary@c1').p50Us <= 70,
    'T1 http-json c=1 p50 <= 80 µs': r('http-json@c1').p50Us <= 80,
    'T1 p99 <= 250 µs (binary c=1)': r('http-binary@c1').p99Us <= 250,
    'T3 http-binary c=64 >= 30k infer/s': r('http-binary@c64').throughput >= 30_000,
    'T3 http-json c=64 >= 25k infer/s': r('http-json@c64').throughput >= 25_000,
    'T13 http-binary c=64 server CPU <= 40 µs/req': (r('http-binary@c64').serverCpuUsPerRequest ?? Infinity) <= 40,
  };
  console.log('ratios', Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, Number(v.toFixed(2))])));
  for (const [k, ok] of Object.entries(targets)) console.log(`${ok ? 'MET ' : 'MISS'} ${k}`);
  return { model: onnx ? 'onnxruntime identity_fp32' : 'identity backend identity_fp32', knobs, results, ratios, targets };
}
