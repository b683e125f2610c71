/**
 * Model states as `repositoryIndex()` reports them (LOADING, READY, UNLOADING, UNAVAILABLE with
 * reasons) and the server's liveness/readiness, observed on a real server while loads and unloads
 * are under way.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TributaryError } from '../../src/errors.js';
import { createServer, inferOnce, type Server } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { quietLog } from '../helpers/quiet-log.js';

// 'flaky' and 'nover' fail to load on purpose; the assertions are on the states they report.
quietLog([/load failed for model '(flaky|nover)'/]);

/** Identity with a timer per execution; warmup makes loading take a visible while. */
const slow = (name: string, delayMs: number, warmups = 0) => `
name: "${name}"
backend: "identity"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 2 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 2 ] } ]
parameters [ { key: "execute_delay_ms" value: { string_value: "${delayMs}" } } ]
${warmups ? `model_warmup [ { name: "w" count: ${warmups} inputs { key: "IN" value: { data_type: TYPE_INT32 dims: [ 2 ] zero_data: true } } } ]` : ''}
`;

async function stateOf(server: Server, name: string): Promise<{ state: string; reason: string } | undefined> {
  const e = (await server.repositoryIndex()).find((m) => m.name === name);
  return e && { state: e.state, reason: e.reason };
}

async function waitFor(what: string, cond: () => Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

const request = (model: string) => ({ model, inputs: [createTensor('IN', 'INT32', [2], Int32Array.from([7, -7]))] });

test('LOADING while a load (with warmup) is under way, then READY; a load through the API leaves readiness alone', async () => {
  const repo = tempRepo({ 'warm/config.pbtxt': slow('warm', 40, 5), 'warm/1/.keep': '' });
  const server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit' });
  try {
    assert.equal(server.isReady(), true, 'nothing asked for yet');
    assert.deepEqual(await stateOf(server, 'warm'), { state: 'UNAVAILABLE', reason: 'unloaded' });
    const loading = server.loadModel('warm');
    await waitFor('LOADING', async () => (await stateOf(server, 'warm'))?.state === 'LOADING');
    assert.equal(server.modelReady('warm'), false);
    assert.equal(server.isReady(), true, 'a client\'s load never takes the server out of readiness (it could fail)');
    const e = await inferOnce(server, request('warm')).then(() => undefined, (x: TributaryError) => x);
    assert.equal(e?.kind, 'NOT_FOUND', "Triton: no ready version, 'has no available versions'");
    assert.match(e!.message, /LOADING/);
    await loading;
    assert.deepEqual(await stateOf(server, 'warm'), { state: 'READY', reason: '' });
    assert.equal(server.isReady(), true);
  } finally {
    await server.close();
    repo.remove();
  }
});

test('UNLOADING while in-flight requests finish; they complete, later ones are refused', async () => {
  const repo = tempRepo({ 'busy/config.pbtxt': slow('busy', 250), 'busy/1/.keep': '' });
  const server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['busy'] });
  try {
    const inflight = inferOnce(server, request('busy'));
    await sleep(20);
    const unloading = server.unloadModel('busy');
    await waitFor('UNLOADING', async () => (await stateOf(server, 'busy'))?.state === 'UNLOADING');
    const refused = await inferOnce(server, request('busy')).then(() => undefined, (x: TributaryError) => x);
    assert.equal(refused?.kind, 'NOT_FOUND', 'no new requests while unloading');
    const res = await inflight;
    assert.deepEqual([...(res.outputs[0]!.data as Int32Array)], [7, -7]);
    await unloading;
    assert.deepEqual(await stateOf(server, 'busy'), { state: 'UNAVAILABLE', reason: 'unloaded' });
    assert.equal(server.isReady(), true, 'an unloaded model does not hold readiness back');
  } finally {
    await server.close();
    repo.remove();
  }
});

test('UNAVAILABLE with the reason of a failed load; readiness returns when the model loads or is unloaded', async () => {
  const repo = tempRepo({ 'flaky/config.pbtxt': 'name: "flaky"\nbackend: "identity"\nmax_batch_size: 0\ninput [ { name: "IN" data_type: TYPE_INT32 dims: [ 2 ] } ]\n', 'flaky/1/.keep': '' });
  const server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['flaky'] });
  try {
    const s = await stateOf(server, 'flaky');
    assert.equal(s?.state, 'UNAVAILABLE');
    assert.match(s!.reason, /identity backend pairs inputs with outputs/);
    assert.equal(server.isReady(), false);
    assert.equal(server.isLive(), true);
    assert.deepEqual((await server.repositoryIndex({ ready: true })).map((m) => m.name), []);

    repo.file('flaky/config.pbtxt', slow('flaky', 0));
    await server.loadModel('flaky');
    assert.equal(server.isReady(), true);
    assert.deepEqual((await server.repositoryIndex({ ready: true })).map((m) => [m.name, m.version, m.state]), [['flaky', '1', 'READY']]);

    // Break it again: the reload fails but the loaded version keeps serving.
    repo.file('flaky/config.pbtxt', 'name: "flaky"\nbackend: "identity"\nmax_batch_size: nope\n');
    await assert.rejects(server.loadModel('flaky'), /flaky/);
    assert.equal(server.modelReady('flaky'), true);
    assert.deepEqual([...((await inferOnce(server, request('flaky'))).outputs[0]!.data as Int32Array)], [7, -7]);
  } finally {
    await server.close();
    repo.remove();
  }
  assert.equal(server.isLive(), false);
  assert.equal(server.isReady(), false);
});

test('a failed start-up load can be cleared by unloading the model', async () => {
  const repo = tempRepo({ 'nover/config.pbtxt': slow('nover', 0) }); // no version folder
  const server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['nover'] });
  try {
    assert.equal(server.isReady(), false);
    assert.match((await stateOf(server, 'nover'))!.reason, /no version directory/);
    await server.unloadModel('nover');
    assert.deepEqual(await stateOf(server, 'nover'), { state: 'UNAVAILABLE', reason: 'unloaded' });
    assert.equal(server.isReady(), true);
  } finally {
    await server.close();
    repo.remove();
  }
});
