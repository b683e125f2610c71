/**
 * Triton's wire semantics over both front ends of one real server: exact 64-bit integers in JSON,
 * the request checks Triton's core makes, shared memory with client shared memory off, and
 * compression of inference responses only.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { status } from '@grpc/grpc-js';
import type { LocalServer } from '../../../src/server/index.js';
import { startHttpServer } from '../../../src/frontend/http/index.js';
import { startGrpcServer } from '../../../src/frontend/grpc/index.js';
import { parseJsonExact } from '../../../src/protocol/index.js';
import { createSharedMemoryRegistry } from '../../../src/frontend/shm/index.js';
import { SEQ_CONFIG } from '../../helpers/model-configs.js';
import { startWireServers, type WireServers } from '../../helpers/wire-servers.js';
import { createTestClient, type TestClient } from '../grpc/grpc-client.js';

const INT64 = [
  'name: "ints"', 'backend: "identity"', 'max_batch_size: 0',
  'input [ { name: "IN_INT64" data_type: TYPE_INT64 dims: [ -1 ] optional: true },',
  '        { name: "IN_UINT64" data_type: TYPE_UINT64 dims: [ -1 ] optional: true } ]',
  'output [ { name: "OUT_INT64" data_type: TYPE_INT64 dims: [ -1 ] }, { name: "OUT_UINT64" data_type: TYPE_UINT64 dims: [ -1 ] } ]', '',
].join('\n');

let servers: WireServers;
let server: LocalServer;
let base: string;
let grpc: TestClient;

before(async () => {
  servers = await startWireServers({ 'ints/config.pbtxt': INT64, 'ints/1/.keep': '', 'seq/config.pbtxt': SEQ_CONFIG, 'seq/1/.keep': '' }, { compressThreshold: 1 });
  ({ server, base, grpc } = servers);
});
after(() => servers.close());

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const grpcError = (method: string, req: unknown) => grpc.call(method, req).then(() => assert.fail(`${method} succeeded`), (e) => e);

test('INT64/UINT64 data past 2^53 keep every digit in and out of HTTP JSON', async () => {
  const body = '{"inputs":[{"name":"IN_INT64","datatype":"INT64","shape":[3],"data":[1152921504606846977,-9223372036854775808,9223372036854775807]},'
    + '{"name":"IN_UINT64","datatype":"UINT64","shape":[2],"data":[18446744073709551615,1152921504606846977]}]}';
  const res = await post('/v2/models/ints/infer', body);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.match(text, /"data":\[1152921504606846977,-9223372036854775808,9223372036854775807\]/);
  assert.match(text, /"data":\[18446744073709551615,1152921504606846977\]/);
  const out = parseJsonExact(text) as { outputs: { name: string; data: unknown[] }[] };
  assert.deepEqual(out.outputs.find((o) => o.name === 'OUT_UINT64')!.data, [2n ** 64n - 1n, 2n ** 60n + 1n]);
});

test('an INT64/UINT64 value out of range is a 400 that prints it exactly', async () => {
  const over = await post('/v2/models/ints/infer', '{"inputs":[{"name":"IN_UINT64","datatype":"UINT64","shape":[1],"data":[18446744073709551616]}]}');
  assert.equal(over.status, 400);
  assert.match((await over.json() as { error: string }).error, /18446744073709551616/);
  const under = await post('/v2/models/ints/infer', '{"inputs":[{"name":"IN_INT64","datatype":"INT64","shape":[1],"data":[-9223372036854775809]}]}');
  assert.equal(under.status, 400);
  assert.match((await under.json() as { error: string }).error, /-9223372036854775809/);
  const shape = await post('/v2/models/ints/infer', '{"inputs":[{"name":"IN_INT64","datatype":"INT64","shape":[1152921504606846977],"data":[1]}]}');
  assert.equal(shape.status, 400);
  assert.match((await shape.json() as { error: string }).error, /1152921504606846977/);
});

test('a sequence ID past 2^53 is exact, and one past 2^64-1 is refused with its digits', async () => {
  const req = (id: string, flags: string) => `{"parameters":{"sequence_id":${id}${flags}},"inputs":[{"name":"INPUT0","datatype":"INT32","shape":[1,1],"data":[7]}]}`;
  const start = await post('/v2/models/seq/infer', req('1152921504606846977', ',"sequence_start":true'));
  assert.equal(start.status, 200, await start.clone().text());
  // 2^60 is a different sequence: were the ID rounded, this would continue the one above.
  const other = await post('/v2/models/seq/infer', req('1152921504606846976', ''));
  assert.equal(other.status, 400);
  const end = await post('/v2/models/seq/infer', req('1152921504606846977', ',"sequence_end":true'));
  assert.equal(end.status, 200, await end.clone().text());
  const bad = await post('/v2/models/seq/infer', req('18446744073709551616', ',"sequence_start":true'));
  assert.equal(bad.status, 400);
  assert.match((await bad.json() as { error: string }).error, /'sequence_id' must be a non-negative integer below 2\^64, got 18446744073709551616/);
});

test('a sequence model takes batch size 1 only (HTTP and gRPC)', async () => {
  const phrase = /^inference request to model 'seq' must specify batch-size 1 due to requirements of sequence batcher/;
  const res = await post('/v2/models/seq/infer', '{"parameters":{"sequence_id":5,"sequence_start":true},"inputs":[{"name":"INPUT0","datatype":"INT32","shape":[2,1],"data":[1,2]}]}');
  assert.equal(res.status, 400);
  assert.match((await res.json() as { error: string }).error, phrase);
  const e = await grpcError('ModelInfer', {
    model_name: 'seq', parameters: { sequence_id: { int64_param: 6 }, sequence_start: { bool_param: true } },
    inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [2, 1], contents: { int_contents: [1, 2] } }],
  });
  assert.equal(e.code, status.INVALID_ARGUMENT);
  assert.match(e.details, phrase);
});

test('an output requested twice is refused (HTTP and gRPC)', async () => {
  const phrase = /^output 'OUT_INT64' already exists in request/;
  const res = await post('/v2/models/ints/infer', '{"inputs":[{"name":"IN_INT64","datatype":"INT64","shape":[1],"data":[1]}],"outputs":[{"name":"OUT_INT64"},{"name":"OUT_INT64"}]}');
  assert.equal(res.status, 400);
  assert.match((await res.json() as { error: string }).error, phrase);
  const e = await grpcError('ModelInfer', {
    model_name: 'ints', inputs: [{ name: 'IN_INT64', datatype: 'INT64', shape: [1], contents: { int64_contents: [1] } }],
    outputs: [{ name: 'OUT_INT64' }, { name: 'OUT_INT64' }],
  });
  assert.equal(e.code, status.INVALID_ARGUMENT);
  assert.match(e.details, phrase);
});

test('client shared memory off: status answers an empty list, register and unregister are refused (501), alike on both transports', async () => {
  const disabled = "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.";
  for (const path of ['/v2/systemsharedmemory/status', '/v2/cudasharedmemory/status']) {
    const res = await fetch(base + path);
    assert.equal(res.status, 200, path);
    assert.deepEqual(await res.json(), [], path);
  }
  const unknown = await fetch(`${base}/v2/systemsharedmemory/region/r/status`);
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json() as { error: string }).error, "Unable to find system shared memory region: 'r'");
  const refusedHttp = [
    '/v2/systemsharedmemory/region/r/register', '/v2/systemsharedmemory/unregister', '/v2/systemsharedmemory/region/r/unregister',
    '/v2/cudasharedmemory/region/r/register', '/v2/cudasharedmemory/unregister', '/v2/cudasharedmemory/region/r/unregister',
  ];
  for (const path of refusedHttp) {
    const body = path.endsWith('register') && !path.endsWith('unregister') ? '{"key":"/r","offset":0,"byte_size":8}' : undefined;
    const res = await fetch(base + path, { method: 'POST', ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}) });
    assert.equal(res.status, 501, path);
    assert.equal((await res.json() as { error: string }).error, disabled, path);
  }
  assert.deepEqual(await grpc.call('SystemSharedMemoryStatus', {}), { regions: {} });
  assert.deepEqual(await grpc.call('CudaSharedMemoryStatus', {}), { regions: {} });
  const refusedGrpc: [string, object][] = [
    ['SystemSharedMemoryRegister', { name: 'r', key: '/r', offset: 0, byte_size: 8 }], ['SystemSharedMemoryUnregister', {}], ['SystemSharedMemoryUnregister', { name: 'r' }],
    ['CudaSharedMemoryRegister', { name: 'r', raw_handle: Buffer.alloc(0), device_id: 0, byte_size: 8 }], ['CudaSharedMemoryUnregister', {}], ['CudaSharedMemoryUnregister', { name: 'r' }],
  ];
  for (const [rpc, req] of refusedGrpc) {
    const e = await grpcError(rpc, req);
    assert.equal(e.code, status.UNIMPLEMENTED, rpc);
    assert.equal(e.details, disabled, rpc);
  }
  // A tensor placed in a region names a region that is not registered (Triton: 404).
  const placed = await post('/v2/models/ints/infer', '{"inputs":[{"name":"IN_INT64","datatype":"INT64","shape":[1],"parameters":{"shared_memory_region":"r","shared_memory_byte_size":8}}]}');
  assert.equal(placed.status, 404);
  assert.match((await placed.json() as { error: string }).error, /^Unable to find shared memory region: 'r'; client shared memory is disabled/);
});

test('only inference responses are compressed', async () => {
  const gz = { 'accept-encoding': 'gzip' };
  for (const path of ['/v2/models/ints/config', '/v2/models/ints', '/v2', '/v2/models/stats']) {
    const res = await fetch(base + path, { headers: gz });
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get('content-encoding'), null, path);
  }
  const infer = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
    // fetch inflates on its own; read the raw bytes to see the encoding really applied.
    import('node:http').then(({ request }) => {
      const req = request(`${base}/v2/models/ints/infer`, { method: 'POST', headers: { ...gz, 'content-type': 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end('{"inputs":[{"name":"IN_INT64","datatype":"INT64","shape":[1],"data":[3]}]}');
    }, reject);
  });
  assert.equal(infer.encoding, 'gzip');
  assert.match(gunzipSync(infer.body).toString(), /"data":\[3\]/);
});

test('client shared memory on, CPU server: CUDA status lists nothing, unregister succeeds, register is refused (HTTP and gRPC), in Triton\'s words', async () => {
  const sharedMemory = createSharedMemoryRegistry();
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1', sharedMemory });
  const g = await startGrpcServer(server, { port: 0, host: '127.0.0.1', sharedMemory });
  const client = createTestClient(g.port);
  try {
    const at = `http://127.0.0.1:${http.port}`;
    assert.deepEqual(await (await fetch(`${at}/v2/cudasharedmemory/status`)).json(), []);
    assert.equal((await fetch(`${at}/v2/cudasharedmemory/region/r/status`)).status, 404);
    assert.equal((await fetch(`${at}/v2/cudasharedmemory/unregister`, { method: 'POST' })).status, 200);
    assert.equal((await fetch(`${at}/v2/cudasharedmemory/region/r/unregister`, { method: 'POST' })).status, 200);
    const reg = await fetch(`${at}/v2/cudasharedmemory/region/r/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"raw_handle":{"b64":""},"device_id":0,"byte_size":8}' });
    assert.equal(reg.status, 400);
    assert.match((await reg.json() as { error: string }).error, /^failed to register CUDA shared memory region: 'r', GPUs not supported/);
    assert.deepEqual(await client.call('CudaSharedMemoryStatus', {}), { regions: {} });
    assert.deepEqual(await client.call('CudaSharedMemoryUnregister', {}), {});
    const e = await client.call('CudaSharedMemoryRegister', { name: 'r', byte_size: 8 }).catch((err) => err);
    assert.equal(e.code, status.INVALID_ARGUMENT);
    assert.match(e.details, /^failed to register CUDA shared memory region: 'r', GPUs not supported/);
    const big = await fetch(`${at}/v2/systemsharedmemory/region/r/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"key":"/r","offset":1152921504606846977,"byte_size":8}' });
    assert.equal(big.status, 400);
    assert.match((await big.json() as { error: string }).error, /offset must be a non-negative integer below 2\^53, got 1152921504606846977/);
    const noKey = await fetch(`${at}/v2/systemsharedmemory/region/r/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"byte_size":8}' });
    assert.equal(noKey.status, 400);
    assert.equal((await noKey.json() as { error: string }).error, "Shared memory register request has no 'key' field");
    const noSize = await fetch(`${at}/v2/systemsharedmemory/region/r/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"key":"/r"}' });
    assert.equal(noSize.status, 400);
    assert.equal((await noSize.json() as { error: string }).error, "Shared memory register request has no 'byte_size' field");
    const noName = await client.call('SystemSharedMemoryRegister', { name: '', key: '/r', byte_size: 8 }).catch((err) => err);
    assert.equal(noName.code, status.INVALID_ARGUMENT);
    assert.equal(noName.details, "'region name' is necessary to register system shared memory region");
  } finally {
    client.close();
    await g.close();
    await http.close();
  }
});
