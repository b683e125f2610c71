/**
 * The trace extension's opentelemetry mode end to end: an OTLP/HTTP receiver in the test, a real
 * server with a pipeline of an ONNX step and a TypeScript step that calls another ONNX model
 * through BLS; the span tree (request, steps, BLS call, queue and compute), the caller's
 * traceparent joined and the server's span returned over HTTP and gRPC.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Metadata } from '@grpc/grpc-js';
import { after, before, test } from 'node:test';
import { createDataPlane } from '../../src/dataplane/index.js';
import { startGrpcServer } from '../../src/frontend/grpc/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { createLogger, setLogSink } from '../../src/logger.js';
import { createServer } from '../../src/server/index.js';
import { Tracer } from '../../src/trace/index.js';
import { createTestClient } from '../frontend/grpc/grpc-client.js';
import { quietLog } from '../helpers/quiet-log.js';
import type { TempRepo } from '../helpers/temp-repo.js';
import { tracedPipelineRepo } from './traced-pipeline.js';


interface Span { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes: { key: string; value: { stringValue?: string } }[]; events?: { name: string }[] }

let repo: TempRepo;
let receiver: Server;
let url: string;
const spans: Span[] = [];
const resources: string[] = [];

quietLog([]);
const logged: string[] = [];

before(async () => {
  repo = tracedPipelineRepo();
  // The OTLP/HTTP receiver: the exporter posts ExportTraceServiceRequest as JSON.
  receiver = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      assert.equal(req.url, '/v1/traces');
      assert.match(String(req.headers['content-type']), /json/);
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { resourceSpans: { resource: unknown; scopeSpans: { spans: Span[] }[] }[] };
      for (const rs of body.resourceSpans) {
        resources.push(JSON.stringify(rs.resource));
        for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
});

after(async () => {
  repo?.remove();
  await new Promise((resolve) => receiver?.close(resolve));
});

const attr = (s: Span, key: string) => s.attributes.find((a) => a.key === key)?.value.stringValue;

test('a pipeline request over HTTP: one span tree under the caller\'s trace, its traceparent returned', async () => {
  const tracer = new Tracer(createLogger('trace'), { url, resource: { 'deployment.environment': 'test' }, bspScheduleDelayMs: 50 });
  const server = await createServer({ modelRepository: repo.dir, tracer });
  const plane = createDataPlane(server, { tracer, traceSettings: { trace_mode: 'opentelemetry', trace_level: ['TIMESTAMPS'], trace_rate: '1' } });
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1', dataPlane: plane });
  setLogSink((line) => { if (line.includes('calling add10')) logged.push(line); });
  const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpan = '00f067aa0ba902b7';
  let returned: string | null;
  try {
    const res = await fetch(`http://127.0.0.1:${http.port}/v2/models/pipe/infer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${callerTrace}-${callerSpan}-01` },
      body: JSON.stringify({ id: 'r1', inputs: [{ name: 'X', datatype: 'FP32', shape: [4], data: [1, 2, 3, 4] }] }),
    });
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json() as { outputs: { data: number[] }[] }).outputs[0]!.data, [12, 13, 14, 15]);
    returned = res.headers.get('traceparent');
    // Without a traceparent the request is still traced (a new trace) and nothing is returned.
    const plain = await fetch(`http://127.0.0.1:${http.port}/v2/models/add1/infer`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [4], data: [1, 2, 3, 4] }] }),
    });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('traceparent'), null);
  } finally {
    await http.close();
    await server.close(); // flushes the exporter
  }

  const joined = spans.filter((s) => s.traceId === callerTrace);
  const byName = (name: string) => joined.filter((s) => s.name === name);
  const [pipe] = byName('pipe');
  assert.ok(pipe, `no pipe span among ${spans.map((s) => s.name).join(', ')}`);
  assert.equal(pipe.parentSpanId, callerSpan);
  assert.equal(attr(pipe, 'triton.model_name'), 'pipe');
  assert.equal(attr(pipe, 'triton.request_id'), 'r1');
  assert.equal(returned, `00-${callerTrace}-${pipe.spanId}-01`);
  const [add1] = byName('add1');
  const [script] = byName('script');
  const [add10] = byName('add10');
  assert.equal(add1?.parentSpanId, pipe.spanId, 'the ONNX step under the pipeline');
  assert.equal(script?.parentSpanId, pipe.spanId, 'the TypeScript step under the pipeline');
  assert.equal(add10?.parentSpanId, script.spanId, 'the BLS call under the script');
  for (const model of [add1, script, add10]) {
    assert.deepEqual(model.events?.map((e) => e.name), ['REQUEST_START', 'QUEUE_START', 'COMPUTE_START', 'COMPUTE_INPUT_END', 'COMPUTE_OUTPUT_START', 'COMPUTE_END', 'REQUEST_END'], model.name);
    const kids = joined.filter((s) => s.parentSpanId === model.spanId).map((s) => s.name).sort();
    assert.deepEqual(kids.filter((k) => k === 'queue' || k === 'compute'), ['compute', 'queue'], model.name);
  }
  const other = spans.filter((s) => s.name === 'add1' && s.traceId !== callerTrace);
  assert.equal(other.length, 1, 'the request without a traceparent starts a trace of its own');
  assert.equal(other[0]!.parentSpanId ?? '', '');
  assert.match(resources[0] ?? '', /deployment\.environment/);
  assert.equal(logged.length, 1);
  assert.match(logged[0]!, new RegExp(`trace_id=${callerTrace} .*calling add10`), 'the script\'s log line carries the trace id');
});

test('over gRPC: the traceparent metadata is joined and the server\'s span comes back in the response metadata', async () => {
  const tracer = new Tracer(createLogger('trace'), { url, resource: {}, bspScheduleDelayMs: 50 });
  const server = await createServer({ modelRepository: repo.dir, tracer });
  const plane = createDataPlane(server, { tracer, traceSettings: { trace_mode: 'opentelemetry', trace_level: ['TIMESTAMPS'], trace_rate: '1' } });
  const grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1', dataPlane: plane });
  const client = createTestClient(grpc.port);
  const callerTrace = '0af7651916cd43dd8448eb211c80319c';
  const callerSpan = 'b7ad6b7169203331';
  let returned: unknown;
  try {
    const md = new Metadata();
    md.set('traceparent', `00-${callerTrace}-${callerSpan}-01`);
    await new Promise<void>((resolve, reject) => {
      const call = client.inference.ModelInfer(
        { model_name: 'pipe', inputs: [{ name: 'X', datatype: 'FP32', shape: [4], contents: { fp32_contents: [1, 2, 3, 4] } }] }, md,
        (err: Error | null) => (err ? reject(err) : resolve()),
      );
      call.on('metadata', (m: Metadata) => { returned = m.get('traceparent')[0]; });
    });
  } finally {
    client.close();
    await grpc.close();
    await server.close();
  }
  const joined = spans.filter((s) => s.traceId === callerTrace);
  const pipe = joined.find((s) => s.name === 'pipe');
  assert.equal(pipe?.parentSpanId, callerSpan);
  assert.equal(returned, `00-${callerTrace}-${pipe.spanId}-01`);
  const script = joined.find((s) => s.name === 'script');
  assert.equal(joined.find((s) => s.name === 'add10')?.parentSpanId, script?.spanId);
});
