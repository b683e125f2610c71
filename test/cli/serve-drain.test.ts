/**
 * `tributary serve` stopped by SIGTERM, as an orchestrator stops it: a real child process with an
 * HTTP request, a gRPC unary call, a gRPC stream and a pipeline (a script waiting on a BLS call)
 * in flight. Readiness turns false, new inference is refused with UNAVAILABLE, every in-flight
 * request gets its real answer, the log counts them, and the process exits 0; with a short
 * --exit-timeout-secs the request still running gets an error response, not a reset.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { status, type ServiceError } from '@grpc/grpc-js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { createTestClient } from '../frontend/grpc/grpc-client.js';

const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const identity = (name: string, delayMs: number) => `name: "${name}"
backend: "identity"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 1, -1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1, -1 ] } ]
instance_group [ { count: 8 kind: KIND_CPU } ]
parameters [ { key: "execute_delay_ms" value: { string_value: "${delayMs}" } } ]
`;

function drainRepo(): TempRepo {
  return tempRepo({
    'slow/config.pbtxt': identity('slow', 1500),
    'slow/1/.keep': '',
    'longer/config.pbtxt': identity('longer', 8000),
    'longer/1/.keep': '',
    'waiter/config.pbtxt': `name: "waiter"
backend: "typescript"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ -1 ] } ]
`,
    // A pipeline step that waits: the script's answer needs the slow model's.
    'waiter/1/model.ts': `import { InferenceRequest, InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    const out: InferenceResponse[] = [];
    for (const r of requests) {
      const x = r.input('X').data as Float32Array;
      const res = await new InferenceRequest({ model: 'slow', inputs: [new Tensor('IN', 'FP32', [1, x.length], x)], outputs: ['OUT'] }).exec();
      const y = (res.output('OUT').data as Float32Array).map((v) => v * 10);
      out.push(new InferenceResponse({ outputs: [new Tensor('Y', 'FP32', [y.length], y)] }));
    }
    return out;
  }
}
`,
  });
}

interface Serve {
  child: ChildProcess;
  http: string;
  grpcPort: number;
  log(): string;
  exited: Promise<number | null>;
}

async function startServe(repo: string, args: string[]): Promise<Serve> {
  const child = spawn(process.execPath, [BIN, 'serve', '--model-repository', repo, '--http-port', '0', '--grpc-port', '0',
    '--allow-metrics', 'false', '--http-address', '127.0.0.1', '--grpc-address', '127.0.0.1', ...args],
  { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const ports = await new Promise<[number, number]>((resolve, reject) => {
    const check = () => {
      const h = /HTTP \(KServe v2\) listening on 127\.0\.0\.1:(\d+)/.exec(out);
      const g = /gRPC \(inference\.GRPCInferenceService\) listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (h && g) resolve([Number(h[1]), Number(g[1])]);
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    void exited.then(() => reject(new Error(`serve exited before listening:\n${out}`)));
  });
  return { child, http: `http://127.0.0.1:${ports[0]}`, grpcPort: ports[1], log: () => out, exited };
}

const fp32Body = (model: string, input: string, values: number[]) => JSON.stringify({
  inputs: [{ name: input, datatype: 'FP32', shape: model === 'waiter' ? [values.length] : [1, values.length], data: values }],
});

function httpInfer(base: string, model: string, input: string, values: number[]) {
  return fetch(`${base}/v2/models/${model}/infer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: fp32Body(model, input, values) });
}

const grpcRequest = (model: string, values: number[]) => ({
  model_name: model, inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, values.length] }],
  raw_input_contents: [Buffer.from(Float32Array.from(values).buffer)],
});
const floats = (b: Buffer) => Array.from(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('SIGTERM drains: readiness false, new inference UNAVAILABLE, every in-flight request answered, exit 0', async (t) => {
  const repo = drainRepo();
  t.after(() => repo.remove());
  const s = await startServe(repo.dir, []);
  t.after(() => { if (s.child.exitCode === null) s.child.kill('SIGKILL'); });
  const client = createTestClient(s.grpcPort);
  t.after(() => client.close());

  const http = httpInfer(s.http, 'slow', 'IN', [1, 2]).then(async (r) => ({ status: r.status, body: await r.json() as any }));
  const pipeline = httpInfer(s.http, 'waiter', 'X', [3]).then(async (r) => ({ status: r.status, body: await r.json() as any }));
  const unary = client.call('ModelInfer', grpcRequest('slow', [4]));
  const stream = new Promise<{ outs: number[][]; errors: string[] }>((resolve, reject) => {
    const call = client.inference.ModelStreamInfer();
    const outs: number[][] = [];
    const errors: string[] = [];
    call.on('data', (m: any) => {
      if (m.error_message) errors.push(m.error_message);
      else outs.push(floats(m.infer_response.raw_output_contents[0]));
    });
    call.on('error', reject);
    // The server ends the stream (OK) once its requests are done: the client need not half-close.
    call.on('end', () => resolve({ outs, errors }));
    call.write(grpcRequest('slow', [5]));
  });
  // Every request has reached its model before the signal.
  await new Promise((r) => setTimeout(r, 600));
  s.child.kill('SIGTERM');

  await until('readiness to turn false', async () => (await fetch(`${s.http}/v2/health/ready`)).status !== 200);
  assert.equal((await fetch(`${s.http}/v2/health/live`)).status, 200, 'live stays true while draining');
  assert.deepEqual(await client.call('ServerReady'), { ready: false });
  const refused = await httpInfer(s.http, 'slow', 'IN', [9]);
  assert.equal(refused.status, 503);
  assert.match(((await refused.json()) as { error: string }).error, /Server is stopping, scheduler for model has stopped accepting new inference requests/);
  const refusedGrpc = await client.call('ModelInfer', grpcRequest('slow', [9])).catch((e: ServiceError) => e);
  assert.equal((refusedGrpc as ServiceError).code, status.UNAVAILABLE);

  const h = await http;
  assert.equal(h.status, 200);
  assert.deepEqual(h.body.outputs[0].data, [1, 2]);
  const p = await pipeline;
  assert.equal(p.status, 200);
  assert.deepEqual(p.body.outputs[0].data, [30]);
  assert.deepEqual(floats((await unary).raw_output_contents[0]), [4]);
  assert.deepEqual(await stream, { outs: [[5]], errors: [] });
  // Kept-alive HTTP and gRPC connections do not hold the process up.
  assert.equal(await s.exited, 0, s.log());
  assert.match(s.log(), /drained: 4 inference request\(s\) in flight at SIGTERM; 4 finished, 0 cancelled/);
  assert.doesNotMatch(s.log(), /Server is stopping: the request was still running/);
});

test('a request still running after --exit-timeout-secs gets an error response, logged as cancelled', async (t) => {
  const repo = drainRepo();
  t.after(() => repo.remove());
  const s = await startServe(repo.dir, ['--exit-timeout-secs=1']);
  t.after(() => { if (s.child.exitCode === null) s.child.kill('SIGKILL'); });
  const client = createTestClient(s.grpcPort);
  t.after(() => client.close());

  const http = httpInfer(s.http, 'longer', 'IN', [1]).then(async (r) => ({ status: r.status, body: await r.json() as { error: string } }));
  const unary = client.call('ModelInfer', grpcRequest('longer', [2])).catch((e: ServiceError) => e);
  await new Promise((r) => setTimeout(r, 600));
  const signalled = Date.now();
  s.child.kill('SIGINT');
  // A second signal during the drain is ignored (logged), as tritonserver ignores it.
  await until('the drain to start', async () => /SIGINT received: stopping/.test(s.log()));
  s.child.kill('SIGTERM');

  const h = await http;
  assert.equal(h.status, 503);
  assert.match(h.body.error, /model 'longer': Server is stopping: the request was still running after --exit-timeout-secs=1/);
  const g = await unary as ServiceError;
  assert.equal(g.code, status.UNAVAILABLE);
  assert.match(g.details, /--exit-timeout-secs=1/);
  assert.equal(await s.exited, 0, s.log());
  assert.ok(Date.now() - signalled < 6000, 'the 8 s model was cut at the 1 s timeout');
  assert.match(s.log(), /drained: 2 inference request\(s\) in flight at SIGINT; 0 finished, 2 cancelled after 1 s/);
  assert.match(s.log(), /SIGTERM ignored: the server is already stopping/);
});
