/**
 * --http-header-forward-pattern / --grpc-header-forward-pattern: matching headers reach a real
 * TypeScript script as request parameters (Triton's header forwarding), over HTTP, gRPC unary and a
 * gRPC stream, and over /generate and /generate_stream (the body's own field keeps its value);
 * reserved names are refused as Triton refuses them. And the gRPC keepalive options
 * reach grpc-js: a connection older than --grpc-max-connection-age is closed by the server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Metadata, connectivityState, type ServiceError } from '@grpc/grpc-js';
import { createServer } from '../../src/server/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { startGrpcServer } from '../../src/frontend/grpc/index.js';
import { compileHeaderPattern } from '../../src/protocol/index.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { createTestClient } from './grpc/grpc-client.js';

const SCRIPT = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
/** Answers with its request parameters as JSON. */
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => new InferenceResponse({ outputs: [new Tensor('P', 'BYTES', [1], [JSON.stringify(r.parameters)])] }));
  }
}
`;
const CONFIG = `name: "params"
backend: "typescript"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "P" data_type: TYPE_STRING dims: [ 1 ] } ]
`;

test('matching headers become request parameters a script reads, over HTTP and gRPC', async (t) => {
  const repo = tempRepo({ 'params/config.pbtxt': CONFIG, 'params/1/model.ts': SCRIPT });
  t.after(() => repo.remove());
  const server = await createServer({ modelRepository: repo.dir });
  t.after(() => server.close());
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1', headerForwardPattern: compileHeaderPattern('http-header-forward-pattern', 'my_.*') });
  t.after(() => http.close());
  const grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1', headerForwardPattern: compileHeaderPattern('grpc-header-forward-pattern', '(?-i)my_.*') });
  t.after(() => grpc.close());

  const post = (headers: Record<string, string>, parameters?: Record<string, unknown>) => fetch(`http://127.0.0.1:${http.port}/v2/models/params/infer`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ ...(parameters ? { parameters } : {}), inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [1] }] }),
  });
  // Case-insensitive by default (header names are); the whole name must match; the body's own value wins.
  const r = await post({ 'My_Header_1': 'v1', my_header_2: 'a "quoted" \\ value', other_my_x: 'no', my_body: 'header' }, { my_body: 'body', k: 1 });
  assert.equal(r.status, 200);
  const params = JSON.parse(((await r.json()) as any).outputs[0].data[0]);
  assert.deepEqual(params, { my_body: 'body', k: 1, my_header_1: 'v1', my_header_2: 'a "quoted" \\ value' });
  // A header named like a reserved parameter is refused with Triton's words.
  const reserved = compileHeaderPattern('http-header-forward-pattern', '.*');
  assert.ok(reserved.test('triton_x'));
  const http2 = await startHttpServer(server, { port: 0, host: '127.0.0.1', headerForwardPattern: reserved });
  t.after(() => http2.close());
  const bad = await fetch(`http://127.0.0.1:${http2.port}/v2/models/params/infer`, {
    method: 'POST', headers: { 'content-type': 'application/json', priority: '1' },
    body: JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [1] }] }),
  });
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: string }).error, /forwarded header 'priority' is reserved for Triton usage/);

  const client = createTestClient(grpc.port);
  t.after(() => client.close());
  const md = new Metadata();
  md.set('my_grpc', 'g1');
  md.set('not_mine', 'x');
  const req = { model_name: 'params', inputs: [{ name: 'X', datatype: 'FP32', shape: [1] }], raw_input_contents: [Buffer.from(Float32Array.of(1).buffer)] };
  const bytesParam = (raw: Buffer) => JSON.parse(raw.subarray(4).toString());
  const unary = await new Promise<any>((resolve, reject) => client.inference.ModelInfer(req, md, (e: ServiceError | null, res: any) => (e ? reject(e) : resolve(res))));
  assert.deepEqual(bytesParam(unary.raw_output_contents[0]), { my_grpc: 'g1' });
  // The stream's metadata goes with each of its requests.
  const streamed = await new Promise<any>((resolve, reject) => {
    const call = client.inference.ModelStreamInfer(md);
    call.on('data', (m: any) => { resolve(m); call.end(); });
    call.on('error', reject);
    call.write(req);
  });
  assert.equal(streamed.error_message, '');
  assert.deepEqual(bytesParam(streamed.infer_response.raw_output_contents[0]), { my_grpc: 'g1' });
});

test('an invalid pattern is refused naming the flag', () => {
  assert.throws(() => compileHeaderPattern('grpc-header-forward-pattern', 'a('), /--grpc-header-forward-pattern: 'a\(' is not a regular expression/);
});

test('--grpc-max-connection-age reaches grpc-js: the server closes an older connection', async (t) => {
  const repo = tempRepo({ 'params/config.pbtxt': CONFIG, 'params/1/model.ts': SCRIPT });
  t.after(() => repo.remove());
  const server = await createServer({ modelRepository: repo.dir });
  t.after(() => server.close());
  const grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1', keepalive: { maxConnectionAgeMs: 300, maxConnectionAgeGraceMs: 100 } });
  t.after(() => grpc.close());
  const client = createTestClient(grpc.port);
  t.after(() => client.close());
  assert.deepEqual(await client.call('ServerLive'), { live: true });
  const channel = client.inference.getChannel();
  assert.equal(channel.getConnectivityState(false), connectivityState.READY);
  // The server's GOAWAY at 300 ms moves the channel out of READY (to IDLE), with no call in flight.
  const left = await new Promise<number>((resolve) => {
    const watch = (s: number) => channel.watchConnectivityState(s, Date.now() + 5000, (timedOut?: Error) => {
      const now = channel.getConnectivityState(false);
      if (timedOut) resolve(now);
      if (now !== connectivityState.READY) resolve(now);
      else watch(now);
    });
    watch(connectivityState.READY);
  });
  assert.notEqual(left, connectivityState.READY);
  // A later call reconnects and succeeds.
  assert.deepEqual(await client.call('ServerLive'), { live: true });
});

test('matching headers become request parameters over /generate and /generate_stream', async (t) => {
  const repo = tempRepo({ 'params/config.pbtxt': CONFIG, 'params/1/model.ts': SCRIPT });
  t.after(() => repo.remove());
  const server = await createServer({ modelRepository: repo.dir });
  t.after(() => server.close());
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1', headerForwardPattern: compileHeaderPattern('http-header-forward-pattern', 'my_.*') });
  t.after(() => http.close());
  const post = (path: string) => fetch(`http://127.0.0.1:${http.port}/v2/models/params/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', My_Header: 'v1', my_body: 'header', other: 'no' },
    body: JSON.stringify({ X: 1, my_body: 'body' }),
  });

  const unary = await post('generate');
  assert.equal(unary.status, 200);
  assert.deepEqual(JSON.parse(((await unary.json()) as { P: string }).P), { my_body: 'body', my_header: 'v1' });

  const stream = await post('generate_stream');
  assert.equal(stream.status, 200);
  const events = (await stream.text()).split('\n').filter((l) => l.startsWith('data: '));
  assert.equal(events.length, 1);
  const event = JSON.parse(events[0]!.slice('data: '.length)) as { P: string };
  assert.deepEqual(JSON.parse(event.P), { my_body: 'body', my_header: 'v1' });
});
