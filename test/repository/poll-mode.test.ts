/**
 * Poll mode end to end: on-disk changes (config edit, new version, new model, removed model) are
 * applied by a rescan (`server.poll()` for determinism, and the `repositoryPollSecs` timer), and a
 * reload drops no request, neither to other models nor to the model being reloaded.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TributaryError } from '../../src/errors.js';
import { inferOnce, type LocalServer, type ServerOptions } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { expectError } from '../helpers/expect-error.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { withServer } from '../helpers/with-server.js';
import { ADD_CONST_CONFIG, addConstModel } from './add-const-model.js';
import { quietLog } from '../helpers/quiet-log.js';

// addk, broken and gone get configs broken on purpose; the assertions are on the API.
quietLog([/load failed for model '(addk|broken|gone)'/]);

/** Echo with a delay per execution, so requests are really in flight while the poll reloads. */
const SLOW_ECHO = `
name: "steady"
backend: "identity"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]
instance_group [ { count: 4 kind: KIND_CPU } ]
parameters [ { key: "execute_delay_ms" value: { string_value: "15" } } ]
`;

/**
 * A server over a fresh repository (addk version 1 and the slow echo, plus whatever `prepare`
 * writes before the server starts); both go when body ends.
 */
async function withRepo(
  options: Omit<ServerOptions, 'modelRepository'>,
  body: (server: LocalServer, repo: TempRepo) => Promise<void>,
  prepare?: (repo: TempRepo) => void,
): Promise<void> {
  const repo = tempRepo({ 'addk/config.pbtxt': ADD_CONST_CONFIG('addk'), 'steady/config.pbtxt': SLOW_ECHO, 'steady/1/.keep': '' });
  repo.file('addk/1/model.onnx', addConstModel(1));
  try {
    prepare?.(repo);
    await withServer({ modelRepository: repo.dir, ...options }, (server) => body(server, repo));
  } finally {
    repo.remove();
  }
}

async function addK(server: LocalServer, version?: string): Promise<{ version: string; k: number }> {
  const x = Float32Array.from([0.5, 1.5, 2.5, 3.5]);
  const res = await inferOnce(server, { model: 'addk', ...(version ? { version } : {}), inputs: [createTensor('x', 'FP32', [1, 4], x)] });
  return { version: res.version, k: (res.outputs[0]!.data as Float32Array)[0]! - 0.5 };
}

async function echo(server: LocalServer, i: number): Promise<void> {
  const data = Float32Array.from([i, i + 0.25, -i]);
  const res = await inferOnce(server, { model: 'steady', id: String(i), inputs: [createTensor('IN', 'FP32', [3], data)] });
  assert.equal(res.id, String(i));
  assert.deepEqual([...(res.outputs[0]!.data as Float32Array)], [...data]);
}

test('poll(): a changed config, an added version, a new model and a removed model are applied', async () => {
  await withRepo({ modelControlMode: 'poll', repositoryPollSecs: 0 }, async (server, repo) => {
    assert.deepEqual(await addK(server), { version: '1', k: 1 });
    await server.poll(); // nothing changed: nothing reloads
    assert.deepEqual(await addK(server), { version: '1', k: 1 });

    // A new version folder: the default policy now serves the highest.
    repo.file('addk/2/model.onnx', addConstModel(2));
    await server.poll();
    assert.deepEqual(await addK(server), { version: '2', k: 2 });
    assert.deepEqual(server.modelMetadata('addk').versions, ['2']);

    // A config change: serve both versions.
    repo.file('addk/config.pbtxt', ADD_CONST_CONFIG('addk', 'version_policy: { all: {} }'));
    await server.poll();
    assert.deepEqual(server.modelMetadata('addk').versions, ['1', '2']);
    assert.deepEqual(await addK(server, '1'), { version: '1', k: 1 });

    // A broken config change keeps the old model serving and reports the problem.
    repo.file('addk/config.pbtxt', ADD_CONST_CONFIG('addk', 'version_policy: { all: {} }\nbogus_field: 1'));
    await server.poll();
    assert.deepEqual(await addK(server), { version: '2', k: 2 });

    // A new model appears.
    repo.file('plus9/config.pbtxt', ADD_CONST_CONFIG('plus9'));
    repo.file('plus9/1/model.onnx', addConstModel(9));
    await server.poll();
    assert.equal(server.modelReady('plus9'), true);

    // A removed model is unloaded.
    rmSync(join(repo.dir, 'plus9'), { recursive: true });
    await server.poll();
    assert.equal(server.modelReady('plus9'), false);
    const gone = await expectError(inferOnce(server, { model: 'plus9', inputs: [createTensor('x', 'FP32', [1, 4], new Float32Array(4))] }));
    assert.ok(gone.kind === 'UNAVAILABLE' || gone.kind === 'NOT_FOUND', gone.message);
    // Load/unload requests are refused in poll mode (Triton's rule).
    await assert.rejects(server.loadModel('addk'), (e: TributaryError) => e.kind === 'UNAVAILABLE' && /polling/.test(e.message));
  });
});

test('poll(): removing a model that failed to load clears it, and the server is ready again', async () => {
  await withRepo({ modelControlMode: 'poll', repositoryPollSecs: 0 }, async (server, repo) => {
    assert.equal(server.isReady(), false);
    assert.match((await server.repositoryIndex()).find((m) => m.name === 'broken')!.reason, /bogus_field/);
    // Fixing the config on disk loads it at the next poll.
    repo.file('broken/config.pbtxt', ADD_CONST_CONFIG('broken'));
    await server.poll();
    assert.equal(server.modelReady('broken'), true);
    assert.equal(server.isReady(), true);
    // Break it and remove it: it leaves the index and readiness.
    repo.file('broken/config.pbtxt', ADD_CONST_CONFIG('broken', 'bogus_field: 1'));
    await server.poll();
    assert.equal(server.modelReady('broken'), true, 'a broken reload keeps the loaded model');
    rmSync(join(repo.dir, 'broken'), { recursive: true });
    await server.poll();
    assert.equal(server.modelReady('broken'), false);
    assert.equal(server.isReady(), true);
    repo.file('gone/config.pbtxt', ADD_CONST_CONFIG('gone', 'bogus_field: 1'));
    repo.file('gone/1/model.onnx', addConstModel(5));
    await server.poll();
    assert.equal(server.isReady(), false);
    rmSync(join(repo.dir, 'gone'), { recursive: true });
    await server.poll();
    assert.equal((await server.repositoryIndex()).some((m) => m.name === 'gone'), false);
    assert.equal(server.isReady(), true);
  }, (repo) => {
    repo.file('broken/config.pbtxt', ADD_CONST_CONFIG('broken', 'bogus_field: 1'));
    repo.file('broken/1/model.onnx', addConstModel(5));
  });
});

test('repositoryPollSecs: the timer applies a change without an explicit poll', async () => {
  await withRepo({ modelControlMode: 'poll', repositoryPollSecs: 1 }, async (server, repo) => {
    repo.file('addk/3/model.onnx', addConstModel(3));
    const deadline = Date.now() + 8000;
    let got = await addK(server);
    while (got.version !== '3' && Date.now() < deadline) {
      await sleep(100);
      got = await addK(server);
    }
    assert.deepEqual(got, { version: '3', k: 3 });
  });
});

test('poll() outside poll mode is refused with UNAVAILABLE', async () => {
  await withRepo({}, async (server) => {
    await assert.rejects(server.poll(), (e: TributaryError) => e.kind === 'UNAVAILABLE' && /only available with model control mode 'poll'/.test(e.message));
  });
});

test('requests in flight during a reload are not dropped (to other models, nor to the reloaded one)', async () => {
  await withRepo({ modelControlMode: 'poll', repositoryPollSecs: 0 }, async (server, repo) => {
    let stop = false;
    let echoed = 0;
    const seenK = new Set<number>();
    // Closed-loop clients: 16 on the unchanged slow model, 4 on the model being reloaded.
    const echoClients = Array.from({ length: 16 }, async (_, c) => {
      for (let i = 0; !stop; i++) {
        await echo(server, c * 1000 + i);
        echoed++;
      }
    });
    const addClients = Array.from({ length: 4 }, async () => {
      while (!stop) seenK.add((await addK(server)).k);
    });
    for (let v = 2; v <= 4; v++) {
      await sleep(30);
      repo.file(`addk/${v}/model.onnx`, addConstModel(v));
      repo.file('steady/note.txt', `touch ${v}`); // steady's files change too: it reloads under load
      await server.poll();
      assert.deepEqual(await addK(server), { version: String(v), k: v });
    }
    await sleep(30);
    stop = true;
    await Promise.all([...echoClients, ...addClients]); // any failed request rejects here
    assert.ok(echoed >= 32, `only ${echoed} echo requests completed`);
    assert.ok(seenK.has(1) && seenK.has(4), `addk answers came from old and new versions: ${[...seenK]}`);
    assert.ok([...seenK].every((k) => [1, 2, 3, 4].includes(k)));
    const steady = server.modelStatistics('steady').model_stats[0]!;
    assert.equal(steady.inference_stats.fail.count, 0);
  });
});

test('poll(): a newer version that fails to load shows in the index while the old version keeps serving', async () => {
  await withRepo({ modelControlMode: 'poll', repositoryPollSecs: 0 }, async (server, repo) => {
    repo.file('addk/2/model.onnx', Buffer.from('not an onnx model'));
    await server.poll();
    assert.deepEqual(await addK(server), { version: '1', k: 1 });
    const rows = (await server.repositoryIndex()).filter((m) => m.name === 'addk');
    const v1 = rows.find((m) => m.version === '1');
    const v2 = rows.find((m) => m.version === '2');
    assert.equal(v1?.state, 'READY');
    assert.equal(v2?.state, 'UNAVAILABLE');
    assert.match(v2?.reason ?? '', /addk/);
    // Fixing the file loads it on the next poll, and the newer version takes over.
    repo.file('addk/2/model.onnx', addConstModel(2));
    await server.poll();
    assert.deepEqual(await addK(server), { version: '2', k: 2 });
  });
});
