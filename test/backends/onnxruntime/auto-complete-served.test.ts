/**
 * The config an ONNX model with no config.pbtxt is served with, over both front ends, field by
 * field against what Triton produces for it: core's AutoCompleteBackendFields fills
 * default_model_filename, the onnxruntime backend turns the dynamic batcher on when it picks
 * max_batch_size itself (core then prefers batches of max_batch_size), NormalizeInstanceGroup
 * names the group it adds after the model, SetDefaultInstanceCount gives an onnxruntime CPU group
 * two instances, and a model that is not decoupled has no model_transaction_policy on the wire.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startGrpcServer, type GrpcServerHandle } from '../../../src/frontend/grpc/index.js';
import { startHttpServer } from '../../../src/frontend/http/index.js';
import { createServer, type LocalServer } from '../../../src/server/index.js';
import { tempRepo, type TempRepo } from '../../helpers/temp-repo.js';
import { createTestClient, type TestClient } from '../../frontend/grpc/grpc-client.js';

let repo: TempRepo;
let server: LocalServer;
let grpc: GrpcServerHandle;
let client: TestClient;
let closeHttp: () => Promise<void>;
let base: string;

before(async () => {
  repo = tempRepo();
  repo.onnx('simple', 'simple.onnx'); // INT32 [-1, 16] in and out: batchable
  repo.onnx('fixed', 'fixed_shape.onnx'); // no variable first dim: max_batch_size stays 0
  server = await createServer({ modelRepository: repo.dir });
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  closeHttp = http.close;
  base = `http://127.0.0.1:${http.port}`;
  grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
  client = createTestClient(grpc.port);
});
after(async () => {
  client.close();
  await grpc.close();
  await closeHttp();
  await server.close();
  repo.remove();
});

async function httpConfig(model: string): Promise<Record<string, any>> {
  const res = await fetch(`${base}/v2/models/${model}/config`);
  assert.equal(res.status, 200);
  return await res.json() as Record<string, any>;
}

test('a batchable ONNX model with no config: Triton\'s auto-completed fields over HTTP and gRPC', async () => {
  const h = await httpConfig('simple');
  const { config: g } = await client.call('ModelConfig', { name: 'simple' });
  for (const c of [h, g]) {
    assert.equal(c.platform, 'onnxruntime_onnx');
    assert.equal(c.backend, 'onnxruntime');
    assert.equal(c.default_model_filename, 'model.onnx');
    assert.equal(c.max_batch_size, 4);
    assert.deepEqual(c.dynamic_batching.preferred_batch_size, [4]);
    assert.equal(Number(c.dynamic_batching.max_queue_delay_microseconds), 0);
    assert.deepEqual(c.instance_group.map((ig: any) => [ig.name, ig.kind, ig.count]), [['simple', 'KIND_CPU', 2]]);
    assert.deepEqual(c.instance_group[0].secondary_devices, []);
  }
  assert.equal('model_transaction_policy' in h, false, 'Triton\'s HTTP JSON has no model_transaction_policy for a model that is not decoupled');
  assert.equal(g.scheduling_choice, 'dynamic_batching');
  assert.equal(g.model_transaction_policy ?? null, null, 'no empty model_transaction_policy message');
});

test('an ONNX model that cannot batch gets no dynamic batcher', async () => {
  const h = await httpConfig('fixed');
  const { config: g } = await client.call('ModelConfig', { name: 'fixed' });
  for (const c of [h, g]) {
    assert.equal(c.max_batch_size, 0);
    assert.equal(c.default_model_filename, 'model.onnx');
    assert.equal(c.dynamic_batching ?? null, null);
    assert.deepEqual(c.instance_group.map((ig: any) => ig.name), ['fixed']);
  }
});
