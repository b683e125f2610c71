/**
 * Model control modes end to end (none / explicit), with real ONNX models: what loads at start,
 * load and unload, ensembles and their composing models, and loads with a config override and
 * model files sent with the request.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { inferOnce, type Server, type ServerOptions } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { testModelPath } from '../../scripts/build-test-models.js';
import { expectError } from '../helpers/expect-error.js';
import { ECHO_CONFIG, int32s, simpleConfig } from '../helpers/model-configs.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { withServer } from '../helpers/with-server.js';
import { ADD_CONST_CONFIG, addConstModel } from './add-const-model.js';
import { quietLog } from '../helpers/quiet-log.js';

// broken_chain fails to load and 'ghost' is not in the repository, on purpose.
quietLog([/load failed for model 'broken_chain'/, /--load-model: model 'ghost' is not in the repository/]);

/** SUM = echo(simple.OUTPUT0) = A + B. */
const chain = (name: string) => `
name: "${name}"
platform: "ensemble"
max_batch_size: 8
input [ { name: "A" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "B" data_type: TYPE_INT32 dims: [ 16 ] } ]
output [ { name: "SUM" data_type: TYPE_INT32 dims: [ 16 ] } ]
ensemble_scheduling {
  step [
    { model_name: "simple" model_version: -1 input_map { key: "INPUT0" value: "A" } input_map { key: "INPUT1" value: "B" }
      output_map { key: "OUTPUT0" value: "s" } },
    { model_name: "echo" model_version: -1 input_map { key: "IN" value: "s" } output_map { key: "OUT" value: "SUM" } }
  ]
}
`;

/** DIFF = simple.OUTPUT1 = A - B (shares 'simple' with chain). */
const DIFF = `
name: "diff"
platform: "ensemble"
max_batch_size: 8
input [ { name: "A" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "B" data_type: TYPE_INT32 dims: [ 16 ] } ]
output [ { name: "D" data_type: TYPE_INT32 dims: [ 16 ] } ]
ensemble_scheduling {
  step [ { model_name: "simple" model_version: -1 input_map { key: "INPUT0" value: "A" } input_map { key: "INPUT1" value: "B" }
      output_map { key: "OUTPUT1" value: "D" } } ]
}
`;

function makeRepo(): TempRepo {
  const repo = tempRepo({
    'simple/config.pbtxt': simpleConfig(),
    'echo/config.pbtxt': ECHO_CONFIG,
    'echo/1/.keep': '',
    'chain/config.pbtxt': chain('chain'),
    'diff/config.pbtxt': DIFF,
    'broken_chain/config.pbtxt': chain('broken_chain').replace('model_name: "echo"', 'model_name: "no_such_step"'),
    'addk/config.pbtxt': ADD_CONST_CONFIG('addk'),
  });
  repo.onnx('simple', 'simple.onnx');
  for (const v of [1, 2]) repo.file(`addk/${v}/model.onnx`, addConstModel(v));
  return repo;
}

/** Directories the repository writes load-request files to. */
const scratchDirs = () => readdirSync(tmpdir()).filter((d) => d.startsWith('tributary-load-')).map((d) => join(tmpdir(), d));

/** A server over a fresh copy of the repository above; both go when body ends. */
async function withRepo(opts: Omit<ServerOptions, 'modelRepository'>, body: (s: Server) => Promise<void>): Promise<void> {
  const repo = makeRepo();
  try {
    await withServer({ modelRepository: repo.dir, ...opts }, body);
  } finally {
    repo.remove();
  }
}

const ints = (f: (i: number) => number) => int32s(16, f);

async function runChain(server: Server, model = 'chain'): Promise<number[]> {
  const res = await inferOnce(server, {
    model, inputs: [createTensor('A', 'INT32', [1, 16], ints((i) => i)), createTensor('B', 'INT32', [1, 16], ints((i) => 10 * i))],
  });
  return [...(res.outputs[0]!.data as Int32Array)];
}

async function states(server: Server): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const m of await server.repositoryIndex()) out[m.version ? `${m.name}@${m.version}` : m.name] = m.state;
  return out;
}

test("mode 'none' loads every model at start and refuses load/unload with a clear UNAVAILABLE error", async () => {
  await withRepo({}, async (server) => {
    assert.deepEqual(await states(server), {
      'addk@2': 'READY', 'broken_chain@1': 'UNAVAILABLE', 'chain@1': 'READY', 'diff@1': 'READY', 'echo@1': 'READY', 'simple@1': 'READY',
    });
    assert.deepEqual(await runChain(server), [...ints((i) => 11 * i)]);
    const broken = (await server.repositoryIndex()).find((m) => m.name === 'broken_chain')!;
    assert.match(broken.reason, /no_such_step/);
    for (const p of [server.loadModel('simple'), server.unloadModel('simple')]) {
      const e = await expectError(p);
      assert.equal(e.kind, 'UNAVAILABLE');
      assert.match(e.message, /model control mode is 'none'/);
    }
    assert.equal(server.modelReady('simple'), true, 'the refused unload changed nothing');
  });
});

test("mode 'explicit' loads only --load-model models; '*' loads all", async () => {
  await withRepo({ modelControlMode: 'explicit', loadModels: ['addk'] }, async (server) => {
    const s = await states(server);
    assert.equal(s['addk@2'], 'READY');
    for (const name of ['simple', 'echo', 'chain', 'diff']) assert.equal(s[name], 'UNAVAILABLE', `${name} is listed but not loaded`);
    assert.equal(server.modelReady('simple'), false);
    assert.equal(server.isReady(), true, 'models never asked for do not hold readiness back');
    const e = await expectError(inferOnce(server, { model: 'simple', inputs: [] }));
    assert.equal(e.kind, 'NOT_FOUND', "Triton: a model with no ready version 'has no available versions' (NOT_FOUND)");
  });
  await withRepo({ modelControlMode: 'explicit', loadModels: ['*'] }, async (server) => {
    const s = await states(server);
    assert.equal(s['chain@1'], 'READY');
    assert.equal(s['simple@1'], 'READY');
    // Its version is tried: the compile refuses the unknown step at its file:line:col.
    assert.equal(s['broken_chain@1'], 'UNAVAILABLE');
  });
});

test('explicit: --load-model of an unknown model is reported at start and keeps the server not ready', async () => {
  await withRepo({ modelControlMode: 'explicit', loadModels: ['addk', 'ghost'] }, async (server) => {
    const ghost = (await server.repositoryIndex()).find((m) => m.name === 'ghost')!;
    assert.equal(ghost.state, 'UNAVAILABLE');
    assert.match(ghost.reason, /not found in the model repository/);
    assert.equal(server.isReady(), false);
    assert.equal(server.modelReady('addk'), true);
  });
});

test('explicit: loading an ensemble loads its composing models; unload_dependents unloads them unless still used', async () => {
  await withRepo({ modelControlMode: 'explicit' }, async (server) => {
    await server.loadModel('chain');
    assert.equal(server.modelReady('simple'), true);
    assert.equal(server.modelReady('echo'), true);
    assert.deepEqual(await runChain(server), [...ints((i) => 11 * i)]);

    // Plain unload keeps the steps.
    await server.unloadModel('chain');
    assert.equal(server.modelReady('chain'), false);
    assert.equal(server.modelReady('simple'), true);
    const e = await expectError(runChain(server));
    assert.equal(e.kind, 'NOT_FOUND');

    // unload_dependents: steps shared with another loaded ensemble stay.
    await server.loadModel('chain');
    await server.loadModel('diff');
    await server.unloadModel('chain', { unloadDependents: true });
    assert.equal(server.modelReady('echo'), false, 'echo served only chain');
    assert.equal(server.modelReady('simple'), true, 'simple is still a step of diff');
    const d = await inferOnce(server, {
      model: 'diff', inputs: [createTensor('A', 'INT32', [1, 16], ints((i) => i)), createTensor('B', 'INT32', [1, 16], ints(() => 1))],
    });
    assert.deepEqual([...(d.outputs[0]!.data as Int32Array)], [...ints((i) => i - 1)]);
    await server.unloadModel('diff', { unloadDependents: true });
    assert.equal(server.modelReady('simple'), false);
    const index = (await server.repositoryIndex()).filter((m) => ['chain', 'diff', 'simple', 'echo'].includes(m.name));
    assert.ok(index.every((m) => m.state === 'UNAVAILABLE' && m.reason === 'unloaded'), JSON.stringify(index));
    assert.equal(server.isReady(), true);
  });
});

test('explicit: an ensemble with an unknown step fails to load naming the step', async () => {
  await withRepo({ modelControlMode: 'explicit' }, async (server) => {
    const e = await expectError(server.loadModel('broken_chain'));
    assert.match(e.message, /no_such_step/);
    const entry = (await server.repositoryIndex()).find((m) => m.name === 'broken_chain')!;
    assert.equal(entry.state, 'UNAVAILABLE');
    assert.match(entry.reason, /no_such_step/);
  });
});

test("explicit: unknown model load is Triton's INTERNAL poll failure and leaves no trace; unknown unload is NOT_FOUND", async () => {
  await withRepo({ modelControlMode: 'explicit' }, async (server) => {
    const e = await expectError(server.loadModel('ghost'));
    assert.equal(e.kind, 'INTERNAL');
    assert.match(e.message, /^failed to load 'ghost', failed to poll from model repository; model not found in any model repository$/);
    assert.equal((await server.repositoryIndex()).some((m) => m.name === 'ghost'), false);
    assert.equal(server.isReady(), true);
    assert.equal((await expectError(server.unloadModel('ghost2'))).kind, 'NOT_FOUND');
  });
});

test('explicit: load with a JSON config override replaces the config on disk', async () => {
  await withRepo({ modelControlMode: 'explicit' }, async (server) => {
    await server.loadModel('addk');
    assert.deepEqual(server.modelMetadata('addk').versions, ['2']);
    const override = {
      name: 'addk', platform: 'onnxruntime_onnx', max_batch_size: 2,
      version_policy: { all: {} },
      input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [4] }],
      output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [4] }],
    };
    await server.loadModel('addk', { config: JSON.stringify(override) });
    assert.deepEqual(server.modelMetadata('addk').versions, ['1', '2']);
    assert.equal(server.modelConfig('addk').max_batch_size, 2);
    const res = await inferOnce(server, { model: 'addk', version: '1', inputs: [createTensor('x', 'FP32', [1, 4], Float32Array.from([1, 2, 3, 4]))] });
    assert.deepEqual([...(res.outputs[0]!.data as Float32Array)], [2, 3, 4, 5]);

    const bad = await expectError(server.loadModel('addk', { config: '{ not json' }));
    assert.equal(bad.kind, 'INVALID_ARG', 'the request is at fault: 400 (Triton: INTERNAL)');
    assert.match(bad.message, /^failed to load 'addk', failed to poll from model repository; Invalid config override: the 'config' parameter is not valid JSON/);
    assert.equal(server.modelReady('addk'), true, 'a refused reload keeps serving the model');
  });
});

test('explicit: load a model that exists only in the request (config + files), then unload it', async () => {
  await withRepo({ modelControlMode: 'explicit' }, async (server) => {
    // The bytes travel base64-encoded on the wire; the server API receives the decoded bytes.
    const onnx = Buffer.from(Buffer.from(readFileSync(testModelPath('simple.onnx'))).toString('base64'), 'base64');
    const config = {
      name: 'uploaded', backend: 'onnxruntime', max_batch_size: 8,
      input: [{ name: 'INPUT0', data_type: 'TYPE_INT32', dims: [16] }, { name: 'INPUT1', data_type: 'TYPE_INT32', dims: [16] }],
      output: [{ name: 'OUTPUT0', data_type: 'TYPE_INT32', dims: [16] }, { name: 'OUTPUT1', data_type: 'TYPE_INT32', dims: [16] }],
    };
    const scratchBefore = new Set(scratchDirs());
    await server.loadModel('uploaded', { config: JSON.stringify(config), files: { '1/model.onnx': new Uint8Array(onnx) } });
    const scratch = scratchDirs().filter((d) => !scratchBefore.has(d));
    assert.equal(scratch.length, 1, 'the sent files are written to one scratch directory');
    const res = await inferOnce(server, {
      model: 'uploaded',
      inputs: [createTensor('INPUT0', 'INT32', [1, 16], ints((i) => i)), createTensor('INPUT1', 'INT32', [1, 16], ints((i) => i * i))],
    });
    assert.deepEqual([...(res.outputs.find((t) => t.name === 'OUTPUT1')!.data as Int32Array)], [...ints((i) => i - i * i)]);
    assert.equal((await server.repositoryIndex()).find((m) => m.name === 'uploaded')?.state, 'READY');
    // Reloading with new files replaces the scratch directory; unloading removes it.
    await server.loadModel('uploaded', { config: JSON.stringify(config), files: { '1/model.onnx': new Uint8Array(onnx) } });
    assert.equal(existsSync(scratch[0]!), false, 'the replaced scratch directory is removed');
    const again = scratchDirs().filter((d) => !scratchBefore.has(d));
    assert.equal(again.length, 1);
    await server.unloadModel('uploaded');
    assert.equal(server.modelReady('uploaded'), false);
    assert.equal(existsSync(again[0]!), false, 'unload removes the scratch directory');

    const noConfig = await expectError(server.loadModel('up2', { files: { '1/model.onnx': new Uint8Array(onnx) } }));
    assert.equal(noConfig.kind, 'INVALID_ARG');
    assert.match(noConfig.message, /need a 'config' parameter/);
    const escape = await expectError(server.loadModel('up3', { config: JSON.stringify({ ...config, name: 'up3' }), files: { '../../evil.onnx': new Uint8Array(onnx) } }));
    assert.equal(escape.kind, 'INVALID_ARG');
    assert.match(escape.message, /^failed to load 'up3', failed to poll from model repository; load parameter "file:\.\.\/\.\.\/evil\.onnx" is refused: it contains '\.\.'/);
  });
});
