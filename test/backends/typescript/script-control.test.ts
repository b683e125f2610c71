/**
 * Model control from scripts (loadModel, unloadModel, isModelReady in tributary/bls) on a real
 * server: in explicit mode a script loads another model and sees it ready, unloads it, loads one
 * from a config and files it sends; the load API's confinement and bounds apply; a load that
 * would wait on its own call is refused; a script may unload itself; outside explicit mode the
 * server's own refusal answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_CONFIG_CHARS } from '../../../backends/typescript/script-control.js';
import { setLogSink } from '../../../src/logger.js';
import { createServer, inferOnce, type LocalServer } from '../../../src/server/index.js';
import { createTensor } from '../../../src/tensor/index.js';
import { expectError } from '../../helpers/expect-error.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { ECHO_MODEL, scriptRepo, type ScriptModel } from './script-repo.js';

/** Every log line, kept for the finalize() test; expected failures and info lines are not printed. */
const logged: string[] = [];
setLogSink((line) => {
  logged.push(line);
  if (!line.startsWith('I') && !/execute\(\) failed|finalize\(\) failed/.test(line)) process.stderr.write(`${line}\n`);
});
after(() => setLogSink((line) => process.stderr.write(`${line}\n`)));

const MADE_CONFIG = {
  name: 'made', backend: 'typescript', max_batch_size: 0,
  input: [{ name: 'IN', data_type: 'TYPE_FP32', dims: [-1] }],
  output: [{ name: 'OUT', data_type: 'TYPE_FP32', dims: [-1] }],
  parameters: { type_check: { string_value: 'off' } },
};

/** Runs the operation its request's parameters name, then answers whether `name` is ready. */
const CONTROLLER: ScriptModel = {
  config: [
    'max_batch_size: 0',
    'input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]',
    'output [ { name: "READY" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  ],
  code: `import { InferenceRequest, InferenceResponse, Tensor, isModelReady, loadModel, unloadModel, type Request } from 'tributary/bls';
const ECHO = ${JSON.stringify(ECHO_MODEL.code)};
const CONFIG = ${JSON.stringify(MADE_CONFIG)};
export default class Model {
  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    const out: InferenceResponse[] = [];
    for (const r of requests) {
      const op = String(r.parameters.op);
      const name = String(r.parameters.name ?? '');
      const file = String(r.parameters.file ?? '1/model.ts');
      if (op === 'load') await loadModel(name);
      else if (op === 'unload') await unloadModel(name);
      else if (op === 'override') await loadModel(name, { config: { ...CONFIG, name }, files: { [file]: new TextEncoder().encode(ECHO) } });
      else if (op === 'textConfig') await loadModel(name, { config: JSON.stringify({ ...CONFIG, name }), files: { '1/model.ts': new TextEncoder().encode(ECHO) } });
      else if (op === 'bigConfig') await loadModel(name, { config: ' '.repeat(${MAX_CONFIG_CHARS + 1}) });
      else if (op === 'viaCall') await new InferenceRequest({ model: name, inputs: [r.input('N')], parameters: { op: 'load', name: String(r.parameters.target) } }).exec();
      out.push(new InferenceResponse({ outputs: [new Tensor('READY', 'INT32', [1], [(await isModelReady(name)) ? 1 : 0])] }));
    }
    return out;
  }
}
`,
};

/** BLS-calls the controller, which is asked to load this very model: the call would wait on itself. */
const CALLER: ScriptModel = {
  config: CONTROLLER.config,
  code: `import { InferenceRequest, InferenceResponse, type Request } from 'tributary/bls';
export default class Model {
  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    const r = requests[0]!;
    const res = await new InferenceRequest({ model: 'controller', inputs: [r.input('N')], parameters: { op: 'load', name: 'caller' } }).exec();
    return [res];
  }
}
`,
};

/** Loads 'target' in initialize() unless it is ready (Triton's own example of the API). */
const INIT_LOADER: ScriptModel = {
  config: ECHO_MODEL.config,
  code: `import { InferenceResponse, isModelReady, loadModel, type Request } from 'tributary/bls';
export default class Model {
  async initialize(): Promise<void> {
    if (!(await isModelReady('target'))) await loadModel('target');
  }
  execute(requests: Request[]): InferenceResponse[] { return requests.map(() => new InferenceResponse()); }
}
`,
};

/** Loaded, but its isReady() says no. */
const NOT_READY: ScriptModel = {
  config: ECHO_MODEL.config,
  code: `import { InferenceResponse, type Request } from 'tributary/bls';
export default class Model {
  isReady(): boolean { return false; }
  execute(requests: Request[]): InferenceResponse[] { return requests.map(() => new InferenceResponse()); }
}
`,
};

/** Its finalize() tries to load a model. */
const FINALIZER: ScriptModel = {
  config: ECHO_MODEL.config,
  params: { isolate_spares: '0' },
  code: `import { InferenceResponse, loadModel, type Request } from 'tributary/bls';
export default class Model {
  async finalize(): Promise<void> { await loadModel('target'); }
  execute(requests: Request[]): InferenceResponse[] { return requests.map(() => new InferenceResponse()); }
}
`,
};

const MODELS = { controller: CONTROLLER, caller: CALLER, target: ECHO_MODEL, init_loader: INIT_LOADER, not_ready: NOT_READY, finalizer: FINALIZER };

const control = (server: LocalServer, parameters: Record<string, string>, model = 'controller') =>
  inferOnce(server, { model, inputs: [createTensor('N', 'INT32', [1], [0])], parameters })
    .then((r) => (r.outputs[0]!.data as Int32Array)[0]);

const echo = (server: LocalServer, model: string) =>
  inferOnce(server, { model, inputs: [createTensor('IN', 'FP32', [2], [1, 2])] }).then((r) => [...(r.outputs[0]!.data as Float32Array)]);

describe('model control from scripts, explicit mode', () => {
  let repo: TempRepo;
  let server: LocalServer;
  before(async () => {
    repo = scriptRepo(MODELS);
    server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['controller', 'caller', 'not_ready'] });
  });
  after(async () => {
    await server.close();
    repo.remove();
  });

  test('a script loads another model and sees it ready; unloads it and sees it gone', async () => {
    assert.equal(server.modelReady('target'), false);
    assert.equal(await control(server, { op: 'load', name: 'target' }), 1);
    assert.equal(server.modelReady('target'), true);
    assert.deepEqual(await echo(server, 'target'), [1, 2]);
    assert.equal(await control(server, { op: 'unload', name: 'target' }), 0, 'not ready as soon as the unload has begun');
    assert.equal(server.modelReady('target'), false);
  });

  test("isModelReady answers what the model's ready endpoint would: its isReady() included", async () => {
    assert.equal(server.modelReady('not_ready'), true);
    assert.equal(await control(server, { op: 'ready', name: 'not_ready' }), 0);
    assert.equal(await control(server, { op: 'ready', name: 'nope' }), 0);
  });

  test('a model loaded from the config and files a script sends (relative paths, or "file:" as in Triton)', async () => {
    assert.equal(await control(server, { op: 'override', name: 'made' }), 1);
    assert.deepEqual(await echo(server, 'made'), [1, 2]);
    assert.equal(await control(server, { op: 'override', name: 'made2', file: 'file:1/model.ts' }), 1);
    assert.deepEqual(await echo(server, 'made2'), [1, 2]);
    assert.equal(await control(server, { op: 'textConfig', name: 'made3' }), 1);
  });

  test("the load API's confinement and bounds apply", async () => {
    let e = await expectError(control(server, { op: 'override', name: 'escape', file: '../outside.ts' }));
    assert.equal(e.code, 'TRB_LOAD_REFUSED', e.message);
    assert.match(e.message, /load parameter "file:\.\.\/outside\.ts" is refused: it contains '\.\.'/);
    e = await expectError(control(server, { op: 'load', name: '../x' }));
    assert.equal(e.code, 'TRB_MODEL_NAME_INVALID', e.message);
    e = await expectError(control(server, { op: 'bigConfig', name: 'big' }));
    assert.equal(e.code, 'TRB_LOAD_PARAMETER_INVALID', e.message);
    assert.match(e.message, new RegExp(`more than ${MAX_CONFIG_CHARS}`));
    e = await expectError(control(server, { op: 'load', name: 'not_in_repository' }));
    assert.equal(e.code, 'TRB_LOAD_POLL_FAILED', e.message);
  });

  test('loading its own model, or a model waiting on the call, is refused: the load would wait on itself', async () => {
    let e = await expectError(control(server, { op: 'load', name: 'controller' }));
    assert.equal(e.code, 'TRB_SCRIPT_MODEL_CONTROL_REFUSED');
    assert.match(e.message, /loadModel\('controller'\): 'controller' is this model; its load would wait for this call to end/);
    e = await expectError(control(server, {}, 'caller'));
    assert.equal(e.code, 'TRB_SCRIPT_MODEL_CONTROL_REFUSED', e.message);
    assert.match(e.message, /loadModel\('caller'\): 'caller' is a model waiting on this call/);
  });

  test('initialize() may load models (guarded by isModelReady, as each isolate runs it)', async () => {
    assert.equal(server.modelReady('target'), false);
    await server.loadModel('init_loader');
    assert.equal(server.modelReady('target'), true);
  });

  test('finalize() may not: the refusal is logged at the unload', async () => {
    const from = logged.length;
    await server.loadModel('finalizer');
    await server.unloadModel('finalizer');
    const lines = logged.slice(from);
    assert.ok(lines.some((l) => /loadModel\('target'\): not available in finalize\(\); call it from initialize\(\) or execute\(\)/.test(l)), lines.join('\n'));
  });

  test('a script unloads its own model without waiting on itself', async () => {
    assert.equal(await control(server, { op: 'unload', name: 'controller' }), 0);
    const until = Date.now() + 15_000;
    while ((await server.repositoryIndex()).find((m) => m.name === 'controller')?.state !== 'UNAVAILABLE' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal((await server.repositoryIndex()).find((m) => m.name === 'controller')?.state, 'UNAVAILABLE', 'the unload finished once the call ended');
  });
});

describe('model control from scripts, other modes', () => {
  test("outside explicit mode loads and unloads get the server's own refusal; isModelReady still answers", async () => {
    const repo = scriptRepo({ controller: CONTROLLER, target: ECHO_MODEL });
    const server = await createServer({ modelRepository: repo.dir });
    try {
      for (const op of ['load', 'unload']) {
        const e = await expectError(control(server, { op, name: 'target' }));
        assert.equal(e.code, 'TRB_MODEL_CONTROL_DISABLED', e.message);
        assert.equal(e.kind, 'UNAVAILABLE');
      }
      assert.equal(await control(server, { op: 'ready', name: 'target' }), 1);
    } finally {
      await server.close();
      repo.remove();
    }
  });
});
