/**
 * The opentelemetry mode's spans beyond a request's own: one span per batch execution linked to
 * the request spans it served, response-cache hits and misses on the request span, and the
 * server's `traceparent` returned on streams (SSE, generate_stream, gRPC ModelStreamInfer).
 */
import assert from 'node:assert/strict';
import { Metadata } from '@grpc/grpc-js';
import { after, before, test } from 'node:test';
import { createDataPlane } from '../../src/dataplane/index.js';
import { startGrpcServer, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { startHttpServer, type HttpServerHandle } from '../../src/frontend/http/index.js';
import { createLogger } from '../../src/logger.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { Tracer } from '../../src/trace/index.js';
import { createTestClient } from '../frontend/grpc/grpc-client.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { attribute, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

const io = 'input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n';
// The first request waits in the queue for the second (preferred batch of 2), and both run as one batch.
const BATCHED = `name: "batched"\nbackend: "identity"\nmax_batch_size: 8\n${io}dynamic_batching { preferred_batch_size: [ 2 ] max_queue_delay_microseconds: 2000000 }\n`
  + 'parameters { key: "execute_delay_ms" value { string_value: "20" } }\n';
const CACHED = `name: "cached"\nbackend: "identity"\nmax_batch_size: 0\n${io}response_cache { enable: true }\n`;
const PLAIN = `name: "plain"\nbackend: "identity"\nmax_batch_size: 0\n${io}`;

quietLog([]);

let repo: TempRepo;
let otlp: OtlpReceiver;
let server: LocalServer;
let http: HttpServerHandle;
let grpc: GrpcServerHandle;
let closed: Promise<void> | undefined;

before(async () => {
  repo = tempRepo({
    'batched/config.pbtxt': BATCHED, 'batched/1/model.identity': '',
    'cached/config.pbtxt': CACHED, 'cached/1/model.identity': '',
    'plain/config.pbtxt': PLAIN, 'plain/1/model.identity': '',
  });
  otlp = await startOtlpReceiver();
  const tracer = new Tracer(createLogger('trace'), { url: otlp.url, resource: {}, bspScheduleDelayMs: 50 });
  server = await createServer({ modelRepository: repo.dir, tracer, responseCache: { kind: 'local', size: 1 << 20 } });
  const plane = createDataPlane(server, { tracer, traceSettings: { trace_mode: 'opentelemetry', trace_level: ['TIMESTAMPS'], trace_rate: '1' } });
  http = await startHttpServer(server, { port: 0, host: '127.0.0.1', dataPlane: plane });
  grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1', dataPlane: plane });
});

after(async () => {
  await closeServers();
  await otlp?.close();
  repo?.remove();
});

/** Closing the server flushes the exporter: the spans are all at the receiver after it. */
function closeServers(): Promise<void> {
  closed ??= (async () => {
    await http?.close();
    await grpc?.close();
    await server?.close();
  })();
  return closed;
}

const post = (model: string, path: string, headers: Record<string, string> = {}, body: unknown = { inputs: [{ name: 'X', datatype: 'FP32', shape: [4], data: [1, 2, 3, 4] }] }) =>
  fetch(`http://127.0.0.1:${http.port}/v2/models/${model}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const spanOf = (traceparent: string | null | undefined): ReceivedSpan | undefined => {
  const [, traceId, spanId] = String(traceparent).split('-');
  return otlp.spans.find((s) => s.traceId === traceId && s.spanId === spanId);
};

const caller = (n: number) => `00-${String(n).padStart(32, 'a')}-${String(n).padStart(16, 'b')}-01`;

const returned: Record<string, string | null | undefined> = {};

test('two requests batched together: one batch span linked to both request spans', async () => {
  const batch = { inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }] };
  const [a, b] = await Promise.all([post('batched', 'infer', { traceparent: caller(1) }, batch), post('batched', 'infer', { traceparent: caller(2) }, batch)]);
  assert.equal(a.status, 200);
  assert.equal(b.status, 200);
  returned.batchA = a.headers.get('traceparent');
  returned.batchB = b.headers.get('traceparent');
  assert.ok(returned.batchA && returned.batchB);
});

test('a cached model: the miss and then the hit are on the request spans', async () => {
  const miss = await post('cached', 'infer', { traceparent: caller(3) });
  const hit = await post('cached', 'infer', { traceparent: caller(4) });
  assert.equal(miss.status, 200);
  assert.equal(hit.status, 200);
  returned.miss = miss.headers.get('traceparent');
  returned.hit = hit.headers.get('traceparent');
});

test('streams return the traceparent: SSE /infer, /generate_stream, /generate', async () => {
  for (const [key, path, headers, body] of [
    ['sse', 'infer', { accept: 'text/event-stream' }, undefined],
    ['generateStream', 'generate_stream', {}, { X: [1, 2, 3, 4] }],
    ['generate', 'generate', {}, { X: [1, 2, 3, 4] }],
  ] as const) {
    const n = Object.keys(returned).length + 10;
    const res = await post('plain', path, { ...headers, traceparent: caller(n) }, body);
    assert.equal(res.status, 200, `${path}: ${await res.clone().text()}`);
    const text = await res.text();
    if (key !== 'generate') assert.match(text, /^data: /, path);
    const tp = res.headers.get('traceparent');
    assert.match(String(tp), new RegExp(`^00-${String(n).padStart(32, 'a')}-[0-9a-f]{16}-01$`), path);
    returned[key] = tp;
  }
});

test('gRPC ModelStreamInfer: the initial metadata carries the traceparent', async () => {
  const client = createTestClient(grpc.port);
  try {
    const md = new Metadata();
    md.set('traceparent', caller(30));
    const call = client.inference.ModelStreamInfer(md);
    const metadata = new Promise<unknown>((resolve) => call.on('metadata', (m: Metadata) => resolve(m.get('traceparent')[0])));
    const got: unknown[] = [];
    call.on('data', (m: unknown) => got.push(m));
    const ended = new Promise((resolve) => call.on('end', resolve));
    call.write({ model_name: 'plain', id: 's1', inputs: [{ name: 'X', datatype: 'FP32', shape: [4] }], raw_input_contents: [Buffer.from(Float32Array.of(1, 2, 3, 4).buffer)] });
    call.end();
    returned.grpcStream = String(await metadata);
    await ended;
    assert.equal(got.length, 1);
    assert.match(returned.grpcStream, new RegExp(`^00-${String(30).padStart(32, 'a')}-[0-9a-f]{16}-01$`));
  } finally {
    client.close();
  }
});

test('the spans, once exported', async () => {
  await closeServers();
  // Batch: one span for the two requests, linked to both, with the batch size.
  const [reqA, reqB] = [spanOf(returned.batchA), spanOf(returned.batchB)];
  assert.ok(reqA && reqB, 'both request spans exported');
  const batches = otlp.spans.filter((s) => s.name === 'batched batch');
  assert.equal(batches.length, 1, `batch spans: ${batches.length}`);
  const batch = batches[0]!;
  assert.deepEqual(batch.links?.map((l) => l.spanId).sort(), [reqA.spanId, reqB.spanId].sort());
  assert.deepEqual(batch.links?.map((l) => l.traceId).sort(), [reqA.traceId, reqB.traceId].sort());
  assert.equal(batch.parentSpanId ?? '', '', 'a batch span is the root of its own trace');
  assert.equal(attribute(batch, 'triton.batch_size'), 2);
  assert.equal(attribute(batch, 'triton.batch_requests'), 2);
  assert.equal(attribute(batch, 'triton.model_name'), 'batched');
  // A model that does not batch (max_batch_size 0) has no batch spans.
  assert.equal(otlp.spans.filter((s) => s.name.endsWith(' batch')).length, 1);

  // Cache: CACHE_MISS then the compute; CACHE_HIT and no compute.
  const miss = spanOf(returned.miss);
  const hit = spanOf(returned.hit);
  assert.ok(miss && hit);
  assert.deepEqual(miss.events?.map((e) => e.name), ['REQUEST_START', 'CACHE_MISS', 'QUEUE_START', 'COMPUTE_START', 'COMPUTE_INPUT_END', 'COMPUTE_OUTPUT_START', 'COMPUTE_END', 'REQUEST_END']);
  assert.deepEqual(hit.events?.map((e) => e.name), ['REQUEST_START', 'CACHE_HIT', 'REQUEST_END']);
  assert.equal(attribute(miss, 'triton.cache_hit'), false);
  assert.equal(attribute(hit, 'triton.cache_hit'), true);
  assert.equal(otlp.spans.filter((s) => s.parentSpanId === hit.spanId).length, 0, 'a hit has no queue or compute span');

  // Streams: each returned traceparent names the model's span, under the caller's span.
  for (const key of ['sse', 'generateStream', 'generate', 'grpcStream']) {
    const s = spanOf(returned[key]);
    assert.ok(s, `${key}: no span ${returned[key]}`);
    assert.equal(s.name, 'plain');
    assert.match(s.parentSpanId ?? '', /^0*b+\d+$/, key);
  }
});
