/**
 * Unary ModelInfer on the HTTP/2 stream (src/frontend/grpc/fast-model-infer.ts) answers as
 * grpc-js's handler does: two real gRPC servers over one real server, one with the direct path
 * and one without, the same calls to both, compared field by field; the direct path's own count
 * shows which calls it served.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { createServer } from '../../../src/server/index.js';
import { startGrpcServer, type GrpcServerHandle } from '../../../src/frontend/grpc/index.js';
import type { Server } from '../../../src/server/types.js';
import { createTestClient, type TestClient } from './grpc-client.js';

const FIXTURE = new URL('../../fixtures/http', import.meta.url).pathname;
const MODEL_INFER = '/inference.GRPCInferenceService/ModelInfer';

let repo: string;
let server: Server;
let direct: { grpc: GrpcServerHandle; client: TestClient };
let viaGrpcJs: { grpc: GrpcServerHandle; client: TestClient };

before(async () => {
  repo = mkdtempSync(join(tmpdir(), 'tributary-fast-grpc-'));
  cpSync(FIXTURE, repo, { recursive: true });
  server = await createServer({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
  const start = async (directInfer: boolean) => {
    const grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1', directInfer, maxInputBytes: 4096 });
    return { grpc, client: createTestClient(grpc.port) };
  };
  direct = await start(true);
  viaGrpcJs = await start(false);
});

after(async () => {
  for (const s of [direct, viaGrpcJs]) {
    s.client.close();
    await s.grpc.close();
  }
  await server.close();
  rmSync(repo, { recursive: true, force: true });
});

const fp32 = (values: number[]) => Buffer.from(Float32Array.from(values).buffer);
const request = (extra: object = {}) => ({
  model_name: 'identity_fp32', id: 'r1',
  inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16] }],
  raw_input_contents: [fp32(Array.from({ length: 16 }, (_, i) => i - 3.5))],
  ...extra,
});

/** The call's answer or its error, reduced to what a client reads. */
async function outcome(client: TestClient, msg: object): Promise<object> {
  try {
    const r = await client.call('ModelInfer', msg);
    return { ok: r };
  } catch (e) {
    const err = e as { code: number; details: string };
    return { code: err.code, details: err.details };
  }
}

async function same(msg: object): Promise<object> {
  const a = await outcome(direct.client, msg);
  const b = await outcome(viaGrpcJs.client, msg);
  assert.deepEqual(a, b);
  return a;
}

test('answers and refusals are grpc-js\'s, and the direct path served them', async () => {
  const before = direct.grpc.directInferCalls();
  const ok = await same(request()) as { ok: { raw_output_contents: Uint8Array[]; id: string } };
  assert.deepEqual(Buffer.from(ok.ok.raw_output_contents[0]!), fp32(Array.from({ length: 16 }, (_, i) => i - 3.5)));
  assert.equal(ok.ok.id, 'r1');
  // A requested output, parameters, and a refusal of each kind: unknown model, wrong shape,
  // unknown output, a decoupled model over unary, a message the decoder refuses.
  await same(request({ outputs: [{ name: 'OUTPUT0' }], parameters: { priority: { int64_param: 1 } } }));
  const refusals = [
    request({ model_name: 'nope' }),
    request({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 15] }] }),
    request({ outputs: [{ name: 'NOPE' }] }),
    request({ model_name: 'streamer' }),
    request({ raw_input_contents: [] }),
  ];
  for (const r of refusals) {
    const o = await same(r) as { code?: number; details?: string };
    assert.ok(o.code !== undefined && o.code !== status.OK, JSON.stringify(o));
    assert.ok(o.details && o.details.length > 0);
  }
  assert.equal(direct.grpc.directInferCalls(), before + 2 + refusals.length);
  assert.equal(viaGrpcJs.grpc.directInferCalls(), 0);
});

test('a deadline ends the call as grpc-js ends it, and cancels the request', async () => {
  const slow = (port: number) => rawCall(port, frame(encodeSlow()), { 'grpc-timeout': '150m' });
  const [a, b] = [await slow(direct.grpc.port), await slow(viaGrpcJs.grpc.port)];
  assert.deepEqual(a, b);
  assert.deepEqual(a, { status: status.DEADLINE_EXCEEDED, message: 'Deadline exceeded' });
  // 'slow' holds a request 3 s: both were cancelled at their deadline, not answered after it.
  await until(() => (server.modelStatistics('slow').model_stats[0]?.inference_stats.fail.count ?? 0) >= 2);
  assert.equal(server.modelStatistics('slow').model_stats[0]?.inference_stats.success.count ?? 0, 0);
  // A malformed timeout is left to grpc-js, which refuses it in its words.
  const n = direct.grpc.directInferCalls();
  const bad = await rawCall(direct.grpc.port, frame(encodeSlow()), { 'grpc-timeout': 'soon' });
  assert.equal(bad.status, status.INTERNAL);
  assert.equal(direct.grpc.directInferCalls(), n);
});

/** One raw HTTP/2 call: its grpc-status and grpc-message (headers or trailers). */
function rawCall(port: number, body: Buffer, headers: Record<string, string> = {}): Promise<{ status: number; message: string }> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on('error', () => {});
  return new Promise<{ status: number; message: string }>((resolve, reject) => {
    const req = session.request({ ':method': 'POST', ':path': MODEL_INFER, 'content-type': 'application/grpc', te: 'trailers', ...headers });
    const settle = (h: http2.IncomingHttpHeaders) => {
      if (h['grpc-status'] !== undefined) resolve({ status: Number(h['grpc-status']), message: decodeURIComponent(String(h['grpc-message'] ?? '')) });
    };
    req.on('response', settle);
    req.on('trailers', settle);
    req.on('data', () => {});
    req.on('error', reject);
    req.end(body);
  }).finally(() => session.destroy());
}

/** A ModelInfer message for 'slow' with one FP32 element, in protobuf's wire format. */
function encodeSlow(): Buffer {
  const str = (tag: number, v: string) => Buffer.concat([Buffer.from([tag, Buffer.byteLength(v)]), Buffer.from(v)]);
  const input = Buffer.concat([str(0x0a, 'INPUT0'), str(0x12, 'FP32'), Buffer.from([0x1a, 1, 1])]);
  const raw = Buffer.from(Float32Array.of(1).buffer);
  return Buffer.concat([str(0x0a, 'slow'), Buffer.from([0x2a, input.length]), input, Buffer.from([0x3a, raw.length]), raw]);
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const frame = (payload: Buffer, claimed = payload.length) => Buffer.concat([Buffer.from([0, claimed >>> 24, (claimed >>> 16) & 255, (claimed >>> 8) & 255, claimed & 255]), payload]);

test('framing faults get grpc-js\'s status and words: too large, incomplete, two messages', async () => {
  const cases: [string, Buffer][] = [
    ['past maxInputBytes', frame(Buffer.alloc(16), 5000)],
    ['shorter than its length', frame(Buffer.alloc(8), 100)],
    ['no message', Buffer.alloc(0)],
    ['two messages', Buffer.concat([frame(Buffer.alloc(2)), frame(Buffer.alloc(2))])],
  ];
  for (const [what, body] of cases) {
    const n = direct.grpc.directInferCalls();
    const [a, b] = [await rawCall(direct.grpc.port, body), await rawCall(viaGrpcJs.grpc.port, body)];
    assert.deepEqual(a, b, what);
    assert.notEqual(a.status, status.OK, what);
    assert.equal(direct.grpc.directInferCalls(), n + 1, `${what}: served directly`);
  }
});

test('a compressed call is left to grpc-js', async () => {
  const n = direct.grpc.directInferCalls();
  const r = await rawCall(direct.grpc.port, frame(Buffer.alloc(4)), { 'grpc-encoding': 'gzip' });
  assert.equal(direct.grpc.directInferCalls(), n);
  assert.notEqual(r.status, status.OK);
});
