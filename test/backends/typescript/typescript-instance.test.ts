/**
 * A script's isReady() and the model ready endpoints (HTTP GET /v2/models/<m>/ready, gRPC
 * ModelReady), on real front ends: answered by the script, bounded by ready_timeout_ms, false on
 * a throw; ready only when every instance says so; server readiness never asks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startGrpcServer } from '../../../src/frontend/grpc/index.js';
import { startHttpServer } from '../../../src/frontend/http/index.js';
import { createServer, inferOnce, type LocalServer } from '../../../src/server/index.js';
import { createTensor } from '../../../src/tensor/index.js';
import { createTestClient, type TestClient } from '../../frontend/grpc/grpc-client.js';
import { quietLog } from '../../helpers/quiet-log.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { ECHO_MODEL, scriptRepo, type ScriptModel } from './script-repo.js';

quietLog([/isReady\(\) failed: .*the model answers not ready/]);

const IO = ECHO_MODEL.config;

/** isReady() answers what the last request's `ready` parameter said (initially true). */
const GATE: ScriptModel = {
  config: IO,
  code: `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  #ready = true;
  async isReady(): Promise<boolean> { await Promise.resolve(); return this.#ready; }
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      this.#ready = r.parameters.ready !== 'false';
      const x = r.input('IN');
      return new InferenceResponse({ outputs: [new Tensor('OUT', 'FP32', x.shape, x.data)] });
    });
  }
}
`,
};

const withReady = (body: string, params: Record<string, string> = {}, count = 1): ScriptModel => ({
  config: [...IO, `instance_group [ { count: ${count} kind: KIND_CPU } ]`],
  params,
  code: `import { InferenceResponse, type InitializeArgs, type Request } from 'tributary/bls';
export default class Model {
  index = 0;
  initialize(args: InitializeArgs): void { this.index = args.instanceIndex; }
  isReady(): boolean | Promise<boolean> { ${body} }
  execute(requests: Request[]): InferenceResponse[] { return requests.map(() => new InferenceResponse()); }
}
`,
});

describe('isReady() and the model ready endpoints', () => {
  let repo: TempRepo;
  let server: LocalServer;
  let http: { port: number; close(): Promise<void> };
  let grpc: { port: number; close(): Promise<void> };
  let client: TestClient;
  const status = async (model: string) => (await fetch(`http://127.0.0.1:${http.port}/v2/models/${model}/ready`)).status;
  const grpcReady = async (model: string) => (await client.call<{ ready: boolean }>('ModelReady', { name: model })).ready;

  before(async () => {
    repo = scriptRepo({
      gate: GATE,
      plain: ECHO_MODEL,
      throws: withReady("throw new Error('the database is down');"),
      hangs: withReady('return new Promise<boolean>(() => {});', { ready_timeout_ms: '200' }),
      // Instance 1 is never ready: the model is not, whatever instance 0 says.
      halves: withReady('return this.index !== 1;', {}, 2),
      truthy: withReady('return 1 as unknown as boolean;'),
    });
    server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['*'] });
    http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
    grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
    client = createTestClient(grpc.port);
  });
  after(async () => {
    client.close();
    await grpc.close();
    await http.close();
    await server.close();
    repo.remove();
  });

  const flip = (ready: string) => inferOnce(server, { model: 'gate', inputs: [createTensor('IN', 'FP32', [1], [1])], parameters: { ready } });

  test('the script says: 200 / ready while isReady() is true, 400 / not ready once it is false, and back', async () => {
    assert.equal(await status('gate'), 200);
    assert.equal(await grpcReady('gate'), true);
    await flip('false');
    assert.equal(await status('gate'), 400);
    assert.equal(await grpcReady('gate'), false);
    assert.equal(await status('gate/versions/1'), 400, 'the versioned route asks too');
    await flip('true');
    assert.equal(await status('gate'), 200);
    assert.equal(await grpcReady('gate'), true);
  });

  test('server readiness and the request path never ask: a not-ready script still serves', async () => {
    await flip('false');
    try {
      assert.equal((await fetch(`http://127.0.0.1:${http.port}/v2/health/ready`)).status, 200);
      assert.equal(server.isReady(), true);
      assert.equal(server.modelReady('gate'), true, 'loaded: the in-process check of the repository state');
      const r = await inferOnce(server, { model: 'gate', inputs: [createTensor('IN', 'FP32', [1], [5])], parameters: { ready: 'false' } });
      assert.deepEqual([...(r.outputs[0]!.data as Float32Array)], [5]);
    } finally {
      await flip('true');
    }
  });

  test('a script without isReady() is ready while loaded, answered without entering its isolate', async () => {
    assert.equal(server.modelReadyCheck!('plain'), true, 'synchronously');
    assert.equal(await status('plain'), 200);
    assert.equal(await grpcReady('plain'), true);
  });

  test('isReady() that throws is not ready (logged); one that never answers is not ready after ready_timeout_ms', async () => {
    assert.equal(await status('throws'), 400);
    assert.equal(await grpcReady('throws'), false);
    const t0 = Date.now();
    assert.equal(await status('hangs'), 400);
    assert.equal(await grpcReady('hangs'), false, 'a second probe waits on the same pending question');
    assert.ok(Date.now() - t0 < 10_000, 'answered within a bound, not left hanging');
  });

  test('ready only when every instance says so; only exactly true counts', async () => {
    assert.equal(await status('halves'), 400);
    assert.equal(await status('truthy'), 400);
  });

  test('an unknown or unloaded model answers 400 / not ready, as before', async () => {
    assert.equal(await status('nope'), 400);
    assert.equal(await grpcReady('nope'), false);
  });
});
