/**
 * perf's lean gRPC load against a real server on loopback: each data step's request reaches the
 * model, an error comes back with the server's status and message, a refused connection fails the
 * call, and only plain addresses are taken (the SDK client serves the rest).
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { grpcUnaryLoad, plainGrpcAddress } from '../../src/cli/perf-grpc-unary.js';
import { ClientError } from '../../src/client/index.js';
import { startGrpcServer, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { createServer, type Server } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { ECHO_CONFIG } from '../helpers/model-configs.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

let repo: TempRepo;
let server: Server;
let grpc: GrpcServerHandle;

before(async () => {
  repo = tempRepo({ 'echo/config.pbtxt': ECHO_CONFIG, 'echo/1/.keep': '' });
  server = await createServer({ modelRepository: repo.dir });
  grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
});
after(async () => {
  await grpc.close();
  await server.close();
  repo.remove();
});

const stats = () => server.modelStatistics('echo').model_stats[0]!;

test('each data step\'s request reaches the model, as many times as it is sent', async () => {
  const steps = [[createTensor('IN', 'INT32', [1, 3], [1, 2, 3])], [createTensor('IN', 'INT32', [2, 5], new Int32Array(10))]];
  const load = grpcUnaryLoad(`127.0.0.1:${grpc.port}`, 'echo', steps, () => ({}));
  try {
    const before = stats();
    await Promise.all(Array.from({ length: 10 }, (_, i) => load.send(i)));
    const now = stats();
    assert.equal(now.inference_stats.success.count - before.inference_stats.success.count, 10);
    // Five requests of batch 1 and five of batch 2: the steps alternate, each as it was encoded.
    assert.equal(now.inference_count - before.inference_count, 15);
  } finally {
    load.close();
  }
});

test('an error comes back with the server\'s status and message', async () => {
  const wrongName = grpcUnaryLoad(`127.0.0.1:${grpc.port}`, 'echo', [[createTensor('NOPE', 'INT32', [1, 1], [1])]], () => ({}));
  const unknown = grpcUnaryLoad(`127.0.0.1:${grpc.port}`, 'no_such_model', [[createTensor('IN', 'INT32', [1, 1], [1])]], () => ({}));
  const wrongVersion = grpcUnaryLoad(`127.0.0.1:${grpc.port}`, 'echo', [[createTensor('IN', 'INT32', [1, 1], [1])]], () => ({ version: '7' }));
  try {
    await assert.rejects(wrongName.send(0), (e: ClientError) => e instanceof ClientError && e.code === 3 && /NOPE/.test(e.message) && /echo/.test(e.message));
    await assert.rejects(unknown.send(0), (e: ClientError) => e instanceof ClientError && e.code !== 0 && /no_such_model/.test(e.message));
    await assert.rejects(wrongVersion.send(0), (e: ClientError) => e instanceof ClientError && e.code !== 0 && /echo/.test(e.message) && /7/.test(e.message));
  } finally {
    for (const l of [wrongName, unknown, wrongVersion]) l.close();
  }
});

test('a refused connection fails the call, and the next one too (each dials again, none hangs)', async () => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const load = grpcUnaryLoad(`127.0.0.1:${port}`, 'echo', [[createTensor('IN', 'INT32', [1, 1], [1])]], () => ({}));
  try {
    await assert.rejects(load.send(0));
    await assert.rejects(load.send(0));
  } finally {
    load.close();
  }
});

test('only plain addresses are dialled by the lean load', () => {
  for (const a of ['localhost:8001', '127.0.0.1:8001', 'models.internal', '[::1]:8001', '[::1]']) assert.equal(plainGrpcAddress(a), true, a);
  for (const a of ['https://example.com:443', 'dns:///example.com:8001', 'unix:/tmp/sock', '::1', 'host:port', 'a b:1']) assert.equal(plainGrpcAddress(a), false, a);
});
