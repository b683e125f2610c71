/**
 * W1 (PERFORMANCE.md): identity FP32 [1,16] at c=1 and c=64, over http-json and http-binary
 * against bare in-process `server.infer` in the same run. The server runs in a child process; the
 * in-process baseline runs in this one. Uses the ORT identity model when build/models has it,
 * else the pure-JS identity backend. Targets T1 (c=1 p50), T3 (c=64 throughput), T13 (CPU/req).
 */
import { existsSync } from 'node:fs';
import { rmSync } from 'node:fs';
import { lastValueFrom } from 'rxjs';
import { createServer } from '../../src/server/index.js';
import { setLogSink } from '../../src/logger.js';
import { decodeInferResponse, encodeInferRequest } from '../../src/protocol/index.js';
import { createTensor } from '../../src/tensor/index.js';
import {
  benchKnobs, createHttpPoster, formatLoad, metricsCpuProbe, runConcurrency, spawnServer, writeRepository, type LoadResult,
} from '../lib/index.js';

const ORT_MODEL = new URL('../../build/models/identity_fp32.onnx', import.meta.url).pathname;
const CONCURRENCY = [1, 64];

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
