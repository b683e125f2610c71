/**
 * --model-namespacing, as tritonserver has it: two repositories each hold a model `addk` that
 * answers differently (x + 10 in A, x + 20 in B) and a pipeline using `addk`; real servers behind
 * the real HTTP and gRPC front ends, reached with the SDK.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { BackendRegistry } from '../../src/backend/index.js';
import { ClientError, createGrpcClient, createHttpClient, createTensor, type InferenceClient } from '../../src/client/index.js';
import { startGrpcServer } from '../../src/frontend/grpc/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { validateRepository } from '../../src/repository/index.js';
import { createServer, defaultBackends, type ServerOptions } from '../../src/server/index.js';
import { applyFlagPolicy } from '../../src/cli/flag-policy.js';
import { createLogger } from '../../src/logger.js';
import { expectError } from '../helpers/expect-error.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { ADD_CONST_CONFIG, addConstModel } from './add-const-model.js';

quietLog([/--load-model: model 'nowhere'/, /'cyc_[ab]'/]);

const AMBIGUOUS = "There are 2 identifiers of model 'addk' in global map, model namespace must be provided to resolve ambiguity.";

const pipeline = (name: string, step: string) => `
name: "${name}"
platform: "ensemble"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling { step [ { model_name: "${step}" model_version: -1 input_map { key: "x" value: "x" } output_map { key: "y" value: "y" } } ] }
`;

function addModel(repo: TempRepo, name: string, k: number): void {
  repo.file(`${name}/config.pbtxt`, ADD_CONST_CONFIG(name));
  repo.file(`${name}/1/model.onnx`, addConstModel(k));
}

/** A: addk (+10), pipe_a over addk, cross_a over only_b (only in B). B: addk (+20), pipe_b over addk, only_b (+2). */
function twoRepos(): { a: TempRepo; b: TempRepo; remove(): void } {
  const a = tempRepo({ 'pipe_a/config.pbtxt': pipeline('pipe_a', 'addk'), 'cross_a/config.pbtxt': pipeline('cross_a', 'only_b') });
  addModel(a, 'addk', 10);
  const b = tempRepo({ 'pipe_b/config.pbtxt': pipeline('pipe_b', 'addk') });
  addModel(b, 'addk', 20);
  addModel(b, 'only_b', 2);
  return { a, b, remove: () => { a.remove(); b.remove(); } };
}

const x = createTensor('x', 'FP32', [1, 4], Float32Array.from([0, 1, 2, 3]));

async function added(c: InferenceClient, model: string): Promise<number> {
  const y = (await c.infer(model, [x])).output('y').data as Float32Array;
  return y[0]!;
}

/** A real server with HTTP and gRPC front ends, and one SDK client for each. */
async function serving(options: ServerOptions, body: (clients: { http: InferenceClient; grpc: InferenceClient }) => Promise<void>): Promise<void> {
  const server = await createServer(options);
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  const grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
  const clients = { http: createHttpClient({ url: `http://127.0.0.1:${http.port}` }), grpc: createGrpcClient({ address: `127.0.0.1:${grpc.port}` }) };
  try {
    await body(clients);
  } finally {
    await clients.http.close();
    await clients.grpc.close();
    await grpc.close();
    await http.close();
    await server.close();
  }
}

const ambiguous = (e: unknown) => e instanceof ClientError && e.kind === 'INVALID_ARG' && e.message.startsWith(AMBIGUOUS);

test('with namespacing, both models of one name load; each pipeline uses its own repository\'s; the name alone is ambiguous', async () => {
  const r = twoRepos();
  try {
    await serving({ modelRepository: [r.a.dir, r.b.dir], modelNamespacing: true }, async ({ http, grpc }) => {
      for (const c of [http, grpc]) {
        assert.equal(await c.isServerReady(), true);
        const index = await c.repositoryIndex();
        assert.deepEqual(index.map((m) => [m.name, m.state]), [
          ['addk', 'READY'], ['addk', 'READY'], ['cross_a', 'READY'], ['only_b', 'READY'], ['pipe_a', 'READY'], ['pipe_b', 'READY'],
        ]);
        assert.equal(await added(c, 'pipe_a'), 10);
        assert.equal(await added(c, 'pipe_b'), 20);
        // A step its own repository lacks is the one model of that name elsewhere (Triton's fuzzy match).
        assert.equal(await added(c, 'cross_a'), 2);
        assert.equal(await added(c, 'only_b'), 2);
        await assert.rejects(c.infer('addk', [x]), ambiguous);
        await assert.rejects(c.modelMetadata('addk'), ambiguous);
      }
      await assert.rejects(http.infer('addk', [x]), (e: unknown) => e instanceof ClientError && e.status === 400);
      await assert.rejects(grpc.infer('addk', [x]), (e: unknown) => e instanceof ClientError && e.code === 3);
    });
  } finally {
    r.remove();
  }
});

test('with namespacing in explicit mode, load and unload by name act on every repository that has it', async () => {
  const r = twoRepos();
  try {
    await serving({ modelRepository: [r.a.dir, r.b.dir], modelNamespacing: true, modelControlMode: 'explicit', loadModels: ['pipe_a', 'nowhere'] }, async ({ http, grpc }) => {
      // Only A's addk is loaded (as pipe_a's step): the name reaches it.
      assert.equal(await added(http, 'addk'), 10);
      assert.equal(await added(grpc, 'pipe_a'), 10);
      await http.loadModel('addk');
      const ready = (await grpc.repositoryIndex({ ready: true })).filter((m) => m.name === 'addk');
      assert.equal(ready.length, 2);
      await assert.rejects(grpc.infer('addk', [x]), ambiguous);
      assert.equal(await added(http, 'pipe_a'), 10, 'the pipeline keeps its own repository\'s step');
      await grpc.unloadModel('addk');
      const states = (await http.repositoryIndex()).filter((m) => m.name === 'addk').map((m) => m.state);
      assert.deepEqual(states, ['UNAVAILABLE', 'UNAVAILABLE']);
      await assert.rejects(http.infer('addk', [x]), (e: unknown) => e instanceof ClientError && e.kind === 'NOT_FOUND');
      await grpc.loadModel('pipe_b');
      assert.equal(await added(http, 'pipe_b'), 20);
      assert.equal(await added(grpc, 'addk'), 20, 'B\'s addk is now the only one held');
    });
  } finally {
    r.remove();
  }
});

test('pipelines of two repositories that use each other fail to load rather than wait forever', { timeout: 60_000 }, async () => {
  const a = tempRepo({ 'cyc_a/config.pbtxt': pipeline('cyc_a', 'cyc_b') });
  const b = tempRepo({ 'cyc_b/config.pbtxt': pipeline('cyc_b', 'cyc_a') });
  try {
    await serving({ modelRepository: [a.dir, b.dir], modelNamespacing: true }, async ({ http }) => {
      const index = await http.repositoryIndex();
      assert.deepEqual(index.map((m) => [m.name, m.state]), [['cyc_a', 'UNAVAILABLE'], ['cyc_b', 'UNAVAILABLE']]);
      assert.equal(await http.isServerReady(), false);
    });
  } finally {
    a.remove();
    b.remove();
  }
});

test('without namespacing, a name in two repositories is still refused, naming the flag that allows it', async () => {
  const r = twoRepos();
  try {
    const e = await expectError(createServer({ modelRepository: [r.a.dir, r.b.dir] }));
    assert.equal(e.kind, 'ALREADY_EXISTS');
    assert.match(e.message, /model 'addk' appears in more than one repository: .* --model-namespacing=true/);
  } finally {
    r.remove();
  }
});

test('validate agrees: namespaced repositories check clean, and without the flag the duplicate is refused', async () => {
  const r = twoRepos();
  const registry = new BackendRegistry();
  for (const b of defaultBackends()) registry.register(b);
  try {
    const report = await validateRepository([r.a.dir, r.b.dir], registry, { namespacing: true });
    assert.deepEqual(report.problems.filter((p) => p.severity === 'error'), []);
    assert.equal(report.models, 6);
    const e = await expectError(validateRepository([r.a.dir, r.b.dir], registry));
    assert.match(e.message, /model 'addk' appears in more than one repository/);
    // A pipeline's step found in no repository is still reported.
    r.a.file('bad_a/config.pbtxt', pipeline('bad_a', 'missing'));
    const bad = await validateRepository([r.a.dir, r.b.dir], registry, { namespacing: true });
    assert.ok(bad.problems.some((p) => p.severity === 'error' && /missing/.test(p.message)), JSON.stringify(bad.problems));
  } finally {
    r.remove();
  }
});

const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));

test('tributary validate --model-namespacing=true passes the two repositories; without it, it fails', async () => {
  const r = twoRepos();
  try {
    const ok = await promisify(execFile)(process.execPath, [BIN, 'validate', r.a.dir, r.b.dir, '--model-namespacing=true']);
    assert.match(ok.stdout, /6 model\(s\) checked: 0 error\(s\)/);
    const bad = await promisify(execFile)(process.execPath, [BIN, 'validate', r.a.dir, r.b.dir]).then(() => undefined, (e: { code: number; stdout: string; stderr: string }) => e);
    assert.ok(bad && bad.code !== 0, 'a duplicate without the flag fails validate');
    assert.match(bad.stdout + bad.stderr, /model 'addk' appears in more than one repository/);
  } finally {
    r.remove();
  }
});

test('--model-namespacing=true is accepted by the flag policy', () => {
  assert.doesNotThrow(() => applyFlagPolicy({ 'model-namespacing': 'true' }, createLogger('test')));
});
