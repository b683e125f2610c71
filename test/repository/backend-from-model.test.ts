/**
 * Which backend a model whose config names none runs on, and its `runtime` field, as Triton's
 * core decides them (model_config_utils.cc AutoCompleteBackendFields; backend_model.cc for the
 * runtime): a model file Triton knows names its backend (model.pt is PyTorch, which this server
 * refuses by name), `default_model_filename` does the same, a model named `<name>.<backend>` runs
 * on `<backend>` with model file `model.<backend>`, and a name with no dot is refused with
 * Triton's words. A runtime the backend does not have, or one that leaves the backend's
 * directory, is refused at load.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BackendRegistry } from '../../src/backend/index.js';
import { startGrpcServer, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { setLogSink } from '../../src/logger.js';
import { validateRepository } from '../../src/repository/index.js';
import { createServer, defaultBackends, inferOnce, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { expectError } from '../helpers/expect-error.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { createTestClient, type TestClient } from '../frontend/grpc/grpc-client.js';

setLogSink(() => {}); // the refused loads below are logged as errors; the assertions are on the API

const IO = [
  'max_batch_size: 4',
  'input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]',
  'output [ { name: "OUT" data_type: TYPE_INT32 dims: [ -1 ] } ]',
].join('\n');

let repo: TempRepo;
let server: LocalServer;
let grpc: GrpcServerHandle;
let client: TestClient;
let closeHttp: () => Promise<void>;
let base: string;

before(async () => {
  repo = tempRepo();
  repo.file('echo.identity/config.pbtxt', `${IO}\n`); // no name, no backend: both from the directory
  repo.file('echo.identity/1/.keep', '');
  repo.file('torch/config.pbtxt', `name: "torch"\n${IO}\n`);
  repo.file('torch/1/model.pt', 'not really TorchScript');
  repo.file('plain/config.pbtxt', `name: "plain"\n${IO}\n`);
  repo.file('plain/1/.keep', '');
  repo.file('named_plan/config.pbtxt', `name: "named_plan"\ndefault_model_filename: "model.plan"\n${IO}\n`);
  repo.file('named_plan/1/model.plan', '');
  for (const [name, runtime] of [['rt_up', '../typescript/index.ts'], ['rt_abs', '/etc/passwd'], ['rt_lib', 'libtriton_identity.so']]) {
    repo.file(`${name}/config.pbtxt`, `name: "${name}"\nbackend: "identity"\nruntime: "${runtime}"\n${IO}\n`);
    repo.file(`${name}/1/.keep`, '');
  }
  server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit' });
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  closeHttp = http.close;
  base = `http://127.0.0.1:${http.port}`;
  grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
  client = createTestClient(grpc.port);
});
after(async () => {
  client?.close();
  await grpc?.close();
  await closeHttp?.();
  await server?.close();
  repo?.remove();
});

test('a model named <name>.<backend> runs on that backend; its config says so over HTTP and gRPC', async () => {
  await server.loadModel('echo.identity');
  const res = await inferOnce(server, { model: 'echo.identity', inputs: [createTensor('IN', 'INT32', [1, 3], new Int32Array([7, 8, 9]))] });
  assert.deepEqual(Array.from(res.outputs[0]!.data as Int32Array), [7, 8, 9]);
  const h = await (await fetch(`${base}/v2/models/echo.identity/config`)).json() as Record<string, any>;
  const { config: g } = await client.call('ModelConfig', { name: 'echo.identity' });
  for (const c of [h, g]) {
    assert.equal(c.name, 'echo.identity');
    assert.equal(c.backend, 'identity');
    assert.equal(c.default_model_filename, 'model.identity');
    assert.equal(c.runtime, '');
    assert.deepEqual(c.instance_group.map((ig: any) => [ig.name, ig.kind, ig.count]), [['echo.identity', 'KIND_CPU', 1]],
      'one instance: only onnxruntime and tensorflow CPU groups default to two');
  }
  assert.equal('model_transaction_policy' in h, false);
  assert.equal(g.model_transaction_policy ?? null, null);
});

test('a model file Triton knows names its backend: model.pt is PyTorch, refused by name', async () => {
  const e = await expectError(server.loadModel('torch'));
  assert.equal(e.kind, 'INVALID_ARG');
  assert.match(e.message, /unknown backend 'pytorch'; this server runs .*'onnxruntime'/);
});

test('default_model_filename names the backend too (model.plan is TensorRT)', async () => {
  const e = await expectError(server.loadModel('named_plan'));
  assert.match(e.message, /unknown backend 'tensorrt'/);
});

test('no backend, no known model file and no dot in the name: Triton\'s refusal', async () => {
  const e = await expectError(server.loadModel('plain'));
  assert.equal(e.kind, 'INVALID_ARG');
  assert.match(e.message, /Invalid model name: Could not determine backend for model 'plain' with no backend in model configuration\. Expected model name of the form 'model\.<backend_name>'\./);
});

test('a runtime that leaves the backend directory is refused as an escape, naming the field', async () => {
  for (const [name, why] of [['rt_up', /contains '\.\.'/], ['rt_abs', /absolute path/]] as const) {
    const e = await expectError(server.loadModel(name));
    assert.equal(e.kind, 'INVALID_ARG', e.message);
    assert.match(e.message, /backend library name '.*' escapes backend directory, for model '.*', check model config runtime field/);
    assert.match(e.message, /runtime "/);
    assert.match(e.message, why);
    assert.match(e.message, /backend 'identity'/);
  }
});

test('a runtime the backend does not have is refused with Triton\'s words', async () => {
  const e = await expectError(server.loadModel('rt_lib'));
  assert.equal(e.kind, 'INVALID_ARG');
  assert.match(e.message, /unable to find backend library 'libtriton_identity\.so' for model 'rt_lib'.*leave runtime empty/);
});

test('tributary validate refuses what a load refuses', async () => {
  const registry = new BackendRegistry();
  for (const b of defaultBackends()) registry.register(b);
  const report = await validateRepository([repo.dir], registry);
  const errors = report.problems.filter((p) => p.severity === 'error').map((p) => p.message).join('\n');
  for (const phrase of [
    /'rt_up'.*escapes backend directory/, /'rt_abs'.*escapes backend directory/, /unable to find backend library 'libtriton_identity\.so' for model 'rt_lib'/,
    /unknown backend 'pytorch'/, /unknown backend 'tensorrt'/, /Could not determine backend for model 'plain'/,
  ]) assert.match(errors, phrase);
  assert.doesNotMatch(errors, /echo\.identity/);
});
