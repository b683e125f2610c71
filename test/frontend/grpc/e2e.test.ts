/**
 * End to end: the real server (createServer on test/fixtures/grpc: identity backend, a TypeScript
 * decoupled model) behind the real gRPC front end, called by a grpc-js client built from the
 * project's protos.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { rmSync, writeFileSync, readFileSync } from 'node:fs';
import { status } from '@grpc/grpc-js';
import { createServer, type Server } from '../../../src/server/index.js';
import { startGrpcServer, type GrpcServerHandle } from '../../../src/frontend/grpc/index.js';
import { createSharedMemoryRegistry } from '../../../src/frontend/shm/index.js';
import { reshapeTensor, tensorToBytes } from '../../../src/tensor/index.js';
import { tensorToContents } from '../../../src/protocol/grpc/index.js';
import { ALL_DATATYPES, sampleTensor } from './datatype-samples.js';
import { createTestClient, type TestClient } from './grpc-client.js';
import { until } from './harness.js';

const repo = fileURLToPath(new URL('../../fixtures/grpc', import.meta.url));
let server: Server;
let grpc: GrpcServerHandle;
let client: TestClient;

before(async () => {
  server = await createServer({ modelRepository: repo });
  grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1', sharedMemory: createSharedMemoryRegistry() });
  client = createTestClient(grpc.port);
});
after(async () => {
  client.close();
  await grpc.close();
  await server.close();
});

const wire = (dt: string) => (dt === 'BYTES' ? 'STRING' : dt);

test('every RPC answers for real models', async () => {
  assert.deepEqual(await client.call('ServerLive'), { live: true });
  assert.deepEqual(await client.call('ServerReady'), { ready: true });
  assert.deepEqual(await client.call('Health.Check', {}), { status: 'SERVING' });
  assert.equal((await client.call('ServerMetadata')).name, 'tributary');
  assert.deepEqual(await client.call('ModelReady', { name: 'identity_fp32' }), { ready: true });
  const md = await client.call('ModelMetadata', { name: 'identity_fp32' });
  assert.deepEqual(md.inputs, [{ name: 'INPUT0', datatype: 'FP32', shape: ['-1', '-1'] }]);
  const { config } = await client.call('ModelConfig', { name: 'streamer' });
  assert.equal(config.backend, 'typescript');
  assert.equal(config.model_transaction_policy.decoupled, true);
  assert.equal((await client.call('ModelConfig', { name: 'identity_fp32' })).config.scheduling_choice, 'dynamic_batching');
  const index = await client.call('RepositoryIndex', {});
  assert.deepEqual(index.models.map((m: any) => m.name).sort(), ['identity_fp32', 'identity_types', 'slow', 'streamer']);
  const stats = await client.call('ModelStatistics', { name: 'identity_fp32' });
  assert.equal(stats.model_stats[0].name, 'identity_fp32');
});

test('every datatype through the identity backend, raw and typed', async () => {
  const flat = (dt: (typeof ALL_DATATYPES)[number]) => {
    const t = sampleTensor(`IN_${wire(dt)}`, dt);
    return reshapeTensor(t, [t.shape.reduce((a, b) => a * b, 1)]);
  };
  const all = ALL_DATATYPES.map((dt) => ({ dt, t: flat(dt) }));
  const res = await client.call('ModelInfer', {
    model_name: 'identity_types',
    inputs: all.map(({ dt, t }) => ({ name: t.name, datatype: dt, shape: t.shape })),
    raw_input_contents: all.map(({ t }) => Buffer.from(tensorToBytes(t))),
  });
  const byName = new Map(res.outputs.map((o: any, i: number) => [o.name, { o, raw: res.raw_output_contents[i] }]));
  for (const { dt, t } of all) {
    const got = byName.get(`OUT_${wire(dt)}`) as any;
    assert.ok(got, `OUT_${wire(dt)} returned`);
    assert.equal(got.o.datatype, dt);
    assert.deepEqual(Buffer.from(got.raw), Buffer.from(tensorToBytes(t)), dt);
  }
  for (const { dt, t } of all.filter((a) => a.dt !== 'FP16' && a.dt !== 'BF16')) {
    const r = await client.call('ModelInfer', {
      model_name: 'identity_types', inputs: [{ name: t.name, datatype: dt, shape: t.shape, contents: tensorToContents(t) }],
    });
    assert.deepEqual(Buffer.from(r.raw_output_contents[0]), Buffer.from(tensorToBytes(t)), `typed ${dt}`);
  }
});

test('validation errors from the model arrive as INVALID_ARGUMENT with the model named', async () => {
  const e = await client.call('ModelInfer', {
    model_name: 'identity_fp32', inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1, 1] }], raw_input_contents: [Buffer.alloc(4)],
  }).catch((err) => err);
  assert.equal(e.code, status.INVALID_ARGUMENT);
  assert.match(e.details, /identity_fp32/);
  const d = await client.call('ModelInfer', { model_name: 'streamer', inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }], raw_input_contents: [Buffer.alloc(4)] }).catch((err) => err);
  assert.equal(d.code, status.UNIMPLEMENTED);
  assert.match(d.details, /decoupled/);
});

test('stream: decoupled TypeScript model sends N responses then the empty final; errors stay in-stream', async () => {
  const call = client.inference.ModelStreamInfer();
  const got: any[] = [];
  call.on('data', (m: any) => got.push(m));
  const ended = new Promise((resolve) => call.on('end', resolve));
  const n = (v: number) => [Buffer.from(Int32Array.of(v).buffer)];
  const input = [{ name: 'N', datatype: 'INT32', shape: [1] }];
  call.write({ model_name: 'streamer', id: 's4', inputs: input, raw_input_contents: n(4), parameters: { triton_enable_empty_final_response: { bool_param: true } } });
  call.write({ model_name: 'streamer', id: 'neg', inputs: input, raw_input_contents: n(-1) });
  call.write({ model_name: 'identity_fp32', id: 'one', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2] }], raw_input_contents: [Buffer.from(Float32Array.of(1, 2).buffer)] });
  call.end();
  await ended;
  const s4 = got.filter((m) => m.infer_response?.id === 's4');
  assert.equal(s4.length, 5);
  assert.deepEqual(s4.slice(0, 4).map((m) => Buffer.from(m.infer_response.raw_output_contents[0]).readInt32LE(0)), [0, 1, 2, 3]);
  assert.deepEqual(s4.map((m) => m.infer_response.parameters.triton_final_response.bool_param), [false, false, false, false, true]);
  const neg = got.filter((m) => m.infer_response?.id === 'neg');
  assert.equal(neg.at(-1).error_message.includes('N must not be negative'), true, JSON.stringify(neg.map((m) => m.error_message)));
  const one = got.filter((m) => m.infer_response?.id === 'one');
  assert.equal(one.length, 1);
  assert.deepEqual([...new Float32Array(Uint8Array.from(one[0].infer_response.raw_output_contents[0]).buffer)], [1, 2]);
});

test('stream: cancelling mid-flight cancels the request in the server', async () => {
  const call = client.inference.ModelStreamInfer();
  call.on('error', () => {});
  call.write({ model_name: 'slow', id: 'x', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1] }], raw_input_contents: [Buffer.alloc(4)] });
  const failCount = () => Number(server.modelStatistics('slow').model_stats[0]!.inference_stats.fail.count);
  const before = failCount();
  await new Promise((r) => setTimeout(r, 100));
  const t0 = Date.now();
  call.cancel();
  await until(() => failCount() === before + 1, 3000);
  assert.ok(Date.now() - t0 < 3000, 'cancelled well before the 5 s delay');
});

test('system shared memory round trip through a real model', async () => {
  const key = `/tributary-e2e-${process.pid}`;
  writeFileSync(`/dev/shm${key}`, Buffer.alloc(64));
  try {
    const data = Float32Array.of(0.5, 1.5, 2.5, 3.5);
    writeFileSync(`/dev/shm${key}`, Buffer.concat([Buffer.from(data.buffer), Buffer.alloc(48)]));
    await client.call('SystemSharedMemoryRegister', { name: 'e2e', key, offset: 0, byte_size: 64 });
    const p = (off: number, size: number) => ({
      shared_memory_region: { string_param: 'e2e' }, shared_memory_offset: { int64_param: off }, shared_memory_byte_size: { int64_param: size },
    });
    const res = await client.call('ModelInfer', {
      model_name: 'identity_fp32',
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], parameters: p(0, 16) }],
      outputs: [{ name: 'OUTPUT0', parameters: p(32, 32) }],
    });
    assert.equal(res.raw_output_contents[0].length, 0);
    const file = readFileSync(`/dev/shm${key}`);
    assert.deepEqual([...new Float32Array(Uint8Array.from(file.subarray(32, 48)).buffer)], [...data]);
  } finally {
    await client.call('SystemSharedMemoryUnregister', {});
    rmSync(`/dev/shm${key}`, { force: true });
  }
});
