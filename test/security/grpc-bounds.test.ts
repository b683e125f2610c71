/**
 * Attacks on the gRPC front end's bounds: compressed bombs, messages over the limit, lengths that
 * lie, protobuf that amplifies, request shapes past the limits, too many streams and connections.
 * Each case checks the refusal (gRPC status and message) and that nothing reached a model or the
 * repository; the server must answer a normal call afterwards. Memory is measured on a server in
 * its own process (peak RSS), so the client's buffers do not count.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { credentials, loadPackageDefinition, Metadata, status } from '@grpc/grpc-js';
import { loadProtos } from '../../src/frontend/grpc/index.js';
import { startHarness, until, type Harness } from '../frontend/grpc/harness.js';
import { createTestClient, type TestClient } from '../frontend/grpc/grpc-client.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { ECHO_CONFIG } from '../helpers/model-configs.js';
import { field, frame, quietLogs, rawCall, spawnGrpcServe, type ServeChild } from './grpc-attack-kit.js';

const MiB = 2 ** 20;
const int32 = (n: number) => Buffer.from(Int32Array.of(n).buffer);
const echo = (bytes: Buffer) => ({ model_name: 'echo', inputs: [{ name: 'IN', datatype: 'UINT8', shape: [bytes.length] }], raw_input_contents: [bytes] });
const fail = (p: Promise<unknown>) => p.then(() => assert.fail('the call succeeded'), (e: any) => e);

quietLogs();

/** The server still answers a normal inference after the attack (id 'probe': not an attack's). */
async function stillServing(client: TestClient): Promise<void> {
  const res = await client.call('ModelInfer', { model_name: 'echo', id: 'probe', inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 1] }], raw_input_contents: [int32(7)] });
  assert.equal(Buffer.from(res.raw_output_contents[0]).readInt32LE(0), 7);
}

/** Requests that reached a model of the in-process server, other than the probes. */
const reached = (harness: Harness) => harness.fake.requests.filter((r) => r.id !== 'probe').length;

/** One stream call: the first response or the call's error. */
function streamOnce(client: TestClient, msg: object): Promise<any> {
  return new Promise((resolve) => {
    const call = client.inference.ModelStreamInfer();
    call.on('data', (m: any) => { resolve(m); call.cancel(); });
    call.on('error', (e: any) => resolve(e));
    call.write(msg);
  });
}

// --- compressed bombs against `tributary serve` in a child process (4 MiB input limit) ---

let repo: TempRepo;
let child: ServeChild;
let childClient: TestClient;
let gzipClient: TestClient;
const LIMIT = 4 * MiB;

before(async () => {
  repo = tempRepo({ 'echo/config.pbtxt': ECHO_CONFIG, 'echo/1/.keep': '' });
  child = await spawnGrpcServe(repo.dir, ['--grpc-max-input-size', String(LIMIT)]);
  childClient = createTestClient(child.grpcPort);
  gzipClient = createTestClient(child.grpcPort, { 'grpc.default_compression_algorithm': 2 });
  await stillServing(childClient);
});
after(async () => {
  childClient.close();
  gzipClient.close();
  await child.stop();
  repo.remove();
});

test('ModelInfer gzip bomb (grpc-js client compression, 64 MiB of zeros): RESOURCE_EXHAUSTED at the limit, server memory flat', async () => {
  const peak = child.peakRss();
  const t0 = performance.now();
  const e = await fail(gzipClient.call('ModelInfer', echo(Buffer.alloc(64 * MiB))));
  assert.equal(e.code, status.RESOURCE_EXHAUSTED);
  assert.equal(e.details, `Received message that decompresses to a size larger than ${LIMIT}`);
  assert.ok(performance.now() - t0 < 5000, `${performance.now() - t0} ms`);
  const grew = child.peakRss() - peak;
  assert.ok(grew < 32 * MiB, `server peak RSS grew by ${(grew / MiB).toFixed(1)} MiB for a 64 MiB bomb`);
  await stillServing(childClient);
});

test('ModelStreamInfer gzip bomb: the stream fails with RESOURCE_EXHAUSTED, server memory flat', async () => {
  const peak = child.peakRss();
  const e = await streamOnce(gzipClient, echo(Buffer.alloc(64 * MiB)));
  assert.equal(e.code, status.RESOURCE_EXHAUSTED);
  assert.match(e.details, /decompresses to a size larger than 4194304/);
  const grew = child.peakRss() - peak;
  assert.ok(grew < 32 * MiB, `server peak RSS grew by ${(grew / MiB).toFixed(1)} MiB`);
  await stillServing(childClient);
});

test('1 MiB of gzip that inflates to 1 GiB (raw HTTP/2): refused within a second, server memory flat', async () => {
  // Concatenated gzip members inflate as one stream: 64 copies of 16 MiB of zeros.
  const member = gzipSync(Buffer.alloc(16 * MiB), { level: 9 });
  const bomb = Buffer.concat(Array.from({ length: 64 }, () => member));
  assert.ok(bomb.length < 1.1 * MiB);
  const peak = child.peakRss();
  const r = await rawCall(child.grpcPort, [frame(bomb, { compressed: true })], { headers: { 'grpc-encoding': 'gzip' } });
  assert.equal(r.status, status.RESOURCE_EXHAUSTED);
  assert.equal(r.message, `Received message that decompresses to a size larger than ${LIMIT}`);
  assert.ok(r.ms < 1000, `${r.ms} ms`);
  const grew = child.peakRss() - peak;
  assert.ok(grew < 32 * MiB, `server peak RSS grew by ${(grew / MiB).toFixed(1)} MiB for a 1 GiB bomb`);
  await stillServing(childClient);
});

// --- in-process server over the scripted fake (counts what reaches a model) ---

let h: Harness;
before(async () => { h = await startHarness({ maxInputBytes: LIMIT }); });
after(() => h.close());

test('ModelInfer deflate bomb: RESOURCE_EXHAUSTED, no request reaches a model', async () => {
  const deflate = createTestClient(h.grpc.port, { 'grpc.default_compression_algorithm': 1 });
  try {
    const e = await fail(deflate.call('ModelInfer', echo(Buffer.alloc(32 * MiB))));
    assert.equal(e.code, status.RESOURCE_EXHAUSTED);
    assert.match(e.details, /decompresses to a size larger than 4194304/);
    assert.equal(reached(h), 0);
  } finally {
    deflate.close();
  }
  await stillServing(h.client);
});

test('compressed with an unknown grpc-encoding: UNIMPLEMENTED, nothing decoded', async () => {
  const r = await rawCall(h.grpc.port, [frame(Buffer.from('not really brotli'), { compressed: true })], { headers: { 'grpc-encoding': 'br' } });
  assert.equal(r.status, status.UNIMPLEMENTED);
  assert.match(r.message, /unsupported encoding "br"/);
  assert.equal(reached(h), 0);
  await stillServing(h.client);
});

test('a compressed flag over bytes that are not gzip: a clean error status, nothing decoded', async () => {
  const r = await rawCall(h.grpc.port, [frame(Buffer.from('plainly not gzip at all'), { compressed: true })], { headers: { 'grpc-encoding': 'gzip' } });
  assert.equal(r.status, status.INTERNAL);
  assert.equal(r.message, 'Failed to decompress message');
  assert.equal(reached(h), 0);
  await stillServing(h.client);
});

test('an uncompressed ModelInfer message over the limit: RESOURCE_EXHAUSTED, no request reaches a model', async () => {
  const e = await fail(h.client.call('ModelInfer', echo(Buffer.alloc(LIMIT))));
  assert.equal(e.code, status.RESOURCE_EXHAUSTED);
  assert.match(e.details, /^Received message larger than max \(\d+ vs 4194304\)$/);
  assert.equal(reached(h), 0);
  await stillServing(h.client);
});

test('an uncompressed ModelStreamInfer message over the limit: RESOURCE_EXHAUSTED on the stream', async () => {
  const e = await streamOnce(h.client, echo(Buffer.alloc(LIMIT)));
  assert.equal(e.code, status.RESOURCE_EXHAUSTED);
  assert.equal(reached(h), 0);
  await stillServing(h.client);
});

test('RepositoryModelLoad with a file over the limit: RESOURCE_EXHAUSTED, nothing loaded', async () => {
  const e = await fail(h.client.call('RepositoryModelLoad', {
    model_name: 'big', parameters: { config: { string_param: '{}' }, 'file:1/model.onnx': { bytes_param: Buffer.alloc(LIMIT) } },
  }));
  assert.equal(e.code, status.RESOURCE_EXHAUSTED);
  assert.deepEqual(h.fake.loads, []);
  await stillServing(h.client);
});

test('a frame header claiming 4 GiB with no body: RESOURCE_EXHAUSTED at once, nothing allocated for it', async () => {
  const head = frame(Buffer.alloc(0), { claimedLength: 0xffffffff });
  const ab = process.memoryUsage().arrayBuffers;
  const r = await rawCall(h.grpc.port, [head], { end: false });
  assert.equal(r.status, status.RESOURCE_EXHAUSTED);
  assert.equal(r.message, 'Received message larger than max (4294967295 vs 4194304)');
  assert.ok(process.memoryUsage().arrayBuffers - ab < 2 * MiB);
  await stillServing(h.client);
});

test('a claimed length larger than what arrives: memory follows the bytes sent, the call ends cleanly', async () => {
  const ab = process.memoryUsage().arrayBuffers;
  // Claims 4 MiB (within the limit), sends 1 KiB, then ends the request.
  const r = await rawCall(h.grpc.port, [frame(Buffer.alloc(1024, 7), { claimedLength: LIMIT })]);
  assert.equal(r.status, status.UNIMPLEMENTED);
  assert.match(r.message, /^Received no request message/);
  assert.ok(process.memoryUsage().arrayBuffers - ab < 2 * MiB, 'no buffer of the claimed size');
  assert.equal(reached(h), 0);
  await stillServing(h.client);
});

// --- protobuf amplification and request-shape limits ---

test('8 MiB of empty `inputs` entries (an object per 2 bytes in a generic decoder): INVALID_ARGUMENT within a second', async () => {
  const big = await startHarness(); // default limit: 64 MiB
  try {
    const body = Buffer.concat([field(0x0a, Buffer.from('echo')), Buffer.alloc(8 * MiB).fill(Buffer.from([0x2a, 0]))]);
    const r = await rawCall(big.grpc.port, [frame(body)]);
    assert.equal(r.status, status.INVALID_ARGUMENT);
    assert.equal(r.message, "model 'echo': the request has 4194304 inputs, more than the limit of 1024");
    assert.ok(r.ms < 1000, `${r.ms} ms`);
    assert.equal(reached(big), 0);
    await stillServing(big.client);
  } finally {
    await big.close();
  }
});

test('the same amplification on ModelStreamInfer: an error response, and the stream keeps serving', async () => {
  const call = h.client.inference.ModelStreamInfer();
  const got: any[] = [];
  call.on('data', (m: any) => got.push(m));
  call.write({ model_name: 'echo', inputs: Array.from({ length: 5000 }, () => ({ name: 'IN', datatype: 'INT32', shape: [1] })) });
  call.write({ model_name: 'echo', id: 'probe', inputs: [{ name: 'IN', datatype: 'INT32', shape: [1] }], raw_input_contents: [int32(3)] });
  call.end();
  await new Promise((resolve) => call.on('end', resolve));
  assert.equal(got.length, 2);
  assert.equal(got[0].error_message, "model 'echo': the request has 5000 inputs, more than the limit of 1024");
  assert.equal(got[1].error_message, '');
  assert.equal(got[1].infer_response.id, 'probe', 'the request after the refused one is answered');
  assert.equal(reached(h), 0);
});

test('malformed protobuf on ModelInfer: INVALID_ARGUMENT naming the flaw, not INTERNAL', async () => {
  const r = await rawCall(h.grpc.port, [frame(Buffer.from([0x2a, 0x05, 0x0a, 0x10, 0x41]))]);
  assert.equal(r.status, status.INVALID_ARGUMENT);
  assert.equal(r.message, 'malformed ModelInferRequest: length 5 past the end of the message at byte 2');
  await stillServing(h.client);
});

test('too many request parameters over gRPC: INVALID_ARGUMENT, no request reaches a model', async () => {
  const parameters = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, { bool_param: true }]));
  const e = await fail(h.client.call('ModelInfer', { ...echo(int32(1)), parameters }));
  assert.equal(e.code, status.INVALID_ARGUMENT);
  assert.equal(e.details, 'request has 100 parameters, more than the limit of 64');
  assert.equal(reached(h), 0);
});

test('a 1 MiB string parameter over gRPC: INVALID_ARGUMENT (request-limits.ts applies to gRPC too)', async () => {
  const e = await fail(h.client.call('ModelInfer', { ...echo(int32(1)), parameters: { note: { string_param: 'x'.repeat(MiB) } } }));
  assert.equal(e.code, status.INVALID_ARGUMENT);
  assert.match(e.details, /^request parameter 'note': its value is 1048576 bytes, more than the limit of 65536$/);
  assert.equal(reached(h), 0);
});

test('a shape of rank 1000 over gRPC: INVALID_ARGUMENT', async () => {
  const e = await fail(h.client.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'IN', datatype: 'INT32', shape: Array(1000).fill(1) }], raw_input_contents: [int32(1)] }));
  assert.equal(e.code, status.INVALID_ARGUMENT);
  assert.equal(e.details, "tensor 'IN': the shape has 1000 dimensions, more than the limit of 64");
  assert.equal(reached(h), 0);
});

// --- streams and connections ---

test('calls in flight on one connection are bounded: the third is not served while two are open', async () => {
  const s = await startHarness({ maxConcurrentStreams: 2 });
  const client = createTestClient(s.grpc.port);
  const calls: ReturnType<typeof client.inference.ModelStreamInfer>[] = [];
  const failed: number[] = [];
  try {
    const hang = { model_name: 'hang', inputs: [{ name: 'IN', datatype: 'INT32', shape: [1] }], raw_input_contents: [int32(1)] };
    for (const i of [0, 1, 2]) {
      const c = client.inference.ModelStreamInfer();
      c.on('error', (e: any) => { failed[i] = e.code; });
      c.write(hang);
      calls.push(c);
    }
    await until(() => s.fake.requests.length === 2);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(s.fake.requests.length, 2, 'the third stream is not served while two are open');
    calls[0]!.cancel();
    // Past the limit, Node 20's HTTP/2 server holds the stream until one ends; from Node 22 on it
    // refuses it at once (RST_STREAM ENHANCE_YOUR_CALM, RESOURCE_EXHAUSTED to the client), as
    // RFC 9113 section 5.1.2 allows. A client that honours the advertised limit never sees either.
    if (Number(process.versions.node.split('.')[0]) < 22) {
      await until(() => s.fake.requests.length === 3);
    } else {
      await until(() => failed[2] !== undefined);
      assert.equal(failed[2], status.RESOURCE_EXHAUSTED);
      assert.equal(s.fake.requests.length, 2);
    }
  } finally {
    for (const c of calls) c.cancel();
    client.close();
    await s.close();
  }
});

test('connections are bounded: one past --grpc-max-connections is closed, the open ones keep working', async () => {
  const s = await startHarness({ maxConnections: 2 });
  const pkg = loadPackageDefinition(loadProtos()) as any;
  // Each client its own connection (no shared subchannel pool); `retryMs` paces its reconnects.
  const connect = (retryMs = 100) => new pkg.inference.GRPCInferenceService(`127.0.0.1:${s.grpc.port}`, credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1, 'grpc.initial_reconnect_backoff_ms': retryMs, 'grpc.max_reconnect_backoff_ms': retryMs,
  });
  const live = (c: any, waitForReady = false) => new Promise<any>((resolve) =>
    c.ServerLive({}, new Metadata({ waitForReady }), { deadline: Date.now() + 5000 }, (e: any, r: any) => resolve(e ?? r)));
  // The refused client must not retry into the slot the test frees below.
  const [a, b, c] = [connect(), connect(), connect(60_000)];
  try {
    assert.deepEqual(await live(a), { live: true });
    assert.deepEqual(await live(b), { live: true });
    const refused = await live(c);
    assert.equal(refused.code, status.UNAVAILABLE);
    assert.equal(reached(s), 0);
    assert.deepEqual(await live(a), { live: true });
    c.close();
    a.close();
    const d = connect();
    assert.deepEqual(await live(d, true), { live: true }, 'a slot frees when a connection closes');
    d.close();
  } finally {
    a.close(); b.close(); c.close();
    await s.close();
  }
});

test('the default input limit is 64 MiB, as HTTP\'s: 64 MiB of tensor is refused, 48 MiB passes', async () => {
  const s = await startHarness();
  try {
    const e = await fail(s.client.call('ModelInfer', echo(Buffer.alloc(64 * MiB))));
    assert.equal(e.code, status.RESOURCE_EXHAUSTED);
    assert.match(e.details, / vs 67108864\)$/);
    assert.equal(reached(s), 0);
    const ok = await s.client.call('ModelInfer', echo(Buffer.alloc(48 * MiB, 1)));
    assert.equal(ok.raw_output_contents[0].length, 48 * MiB);
  } finally {
    await s.close();
  }
});
