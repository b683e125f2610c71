/**
 * Pipelines that use each other (or themselves) in every control mode: the models on the loop fail
 * to load with Triton's "circular dependency between ensembles" and the loop spelled out with the
 * file:line:col of each step, the other models load, and nothing hangs (a default-mode `serve` over
 * such a repository used to exit 13 with no output: two loads waiting on each other forever).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { setLogSink } from '../../src/logger.js';
import { inferOnce, type LocalServer, type ServerOptions } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { expectError } from '../helpers/expect-error.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { withServer } from '../helpers/with-server.js';

setLogSink(() => {}); // the in-process servers log the failed loads as errors; assertions are on the index and the API

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const BIN = join(ROOT, 'bin/tributary.js');

const ECHO = `
name: "echo"
backend: "identity"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ -1 ] } ]
`;

/** A one-step pipeline over `step`; its model_name sits on line 7, column 32. */
const pipe = (name: string, step: string) => `
name: "${name}"
platform: "ensemble"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ -1 ] } ]
ensemble_scheduling { step [ { model_name: "${step}" model_version: -1 input_map { key: "IN" value: "IN" } output_map { key: "OUT" value: "OUT" } } ] }
`;

/** Each pipeline and the model it uses: a pair, a self-loop, a loop of three, a user of a loop and one that is fine. */
const PIPES: Record<string, string> = {
  ca: 'cb', cb: 'ca', self: 'self', c1: 'c2', c2: 'c3', c3: 'c1', uses_ca: 'ca', fine: 'echo',
};
const LOOPS = [['ca', 'cb'], ['self'], ['c1', 'c2', 'c3']];

function makeRepo(): TempRepo {
  const repo = tempRepo({ 'echo/config.pbtxt': ECHO, 'echo/1/.keep': '' });
  for (const [name, step] of Object.entries(PIPES)) repo.file(`${name}/config.pbtxt`, pipe(name, step));
  return repo;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The cycle message for `loop` starting at any of its models (which load closes the loop depends
 * on timing), each link placed at the step that names the next model.
 */
function cycleMessage(loop: readonly string[]): RegExp {
  const forms = loop.map((_, k) => {
    const order = [...loop.slice(k), ...loop.slice(0, k)];
    const cycle = [...order, order[0]!];
    const links = order.map((m, i) => `${m}/config.pbtxt:7:32 uses '${cycle[i + 1]}'`);
    return esc(`circular dependency between ensembles: ${cycle.join(' -> ')} (${links.join(', ')})`);
  });
  return new RegExp(`(${forms.join('|')})`);
}

async function echoThrough(server: LocalServer, model: string): Promise<number[]> {
  const res = await inferOnce(server, { model, inputs: [createTensor('IN', 'INT32', [1, 3], Int32Array.from([4, 5, 6]))] });
  return [...(res.outputs[0]!.data as Int32Array)];
}

async function reasons(server: LocalServer): Promise<Record<string, string>> {
  return Object.fromEntries((await server.repositoryIndex()).map((m) => [m.name, m.state === 'READY' ? 'READY' : m.reason]));
}

/** Every model on a loop and the pipeline that uses one fail with the loop named; the others serve. */
function assertLoopsRefused(byName: Record<string, string>): void {
  for (const loop of LOOPS) for (const m of loop) assert.match(byName[m] ?? '', cycleMessage(loop), `${m}: ${byName[m]}`);
  assert.match(byName.uses_ca ?? '', cycleMessage(['ca', 'cb']));
  assert.equal(byName.fine, 'READY');
  assert.equal(byName.echo, 'READY');
}

async function withRepo(options: Omit<ServerOptions, 'modelRepository'>, body: (s: LocalServer, repo: TempRepo) => Promise<void>): Promise<void> {
  const repo = makeRepo();
  try {
    await withServer({ modelRepository: repo.dir, ...options }, (s) => body(s, repo));
  } finally {
    repo.remove();
  }
}

interface Exit { code: number | null; signal: NodeJS.Signals | null; log: string }

/**
 * `tributary serve` over `dir` on loopback port 0; `listening` runs with the HTTP port once every
 * front end listens, and its end sends SIGTERM.
 */
function serve(dir: string, extra: readonly string[], listening: (httpPort: number) => Promise<void>): Promise<Exit> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--model-repository', dir, ...extra,
      '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0',
      '--http-address', '127.0.0.1', '--grpc-address', '127.0.0.1', '--metrics-address', '127.0.0.1'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    let started = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not finish in 30 s:\n${log}`));
    }, 30_000);
    const read = (d: Buffer) => {
      log += d;
      const http = /HTTP \(KServe v2\) listening on 127\.0\.0\.1:(\d+)/.exec(log);
      if (!started && http && /metrics listening on/.test(log)) {
        started = true;
        listening(Number(http[1])).then(() => child.kill('SIGTERM'), (e: unknown) => {
          child.kill('SIGKILL');
          reject(e);
        });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, log });
    });
  });
}

test('serve (default control mode, --exit-on-error=false): the loops are reported, the other models serve', async () => {
  const repo = makeRepo();
  try {
    const r = await serve(repo.dir, ['--exit-on-error=false'], async (port) => {
      assert.equal((await fetch(`http://127.0.0.1:${port}/v2/models/fine/ready`)).status, 200);
      assert.equal((await fetch(`http://127.0.0.1:${port}/v2/models/ca/ready`)).status, 400);
    });
    assert.equal(r.signal, null, r.log);
    assert.equal(r.code, 0, r.log);
    const lines = r.log.split('\n');
    for (const loop of LOOPS) {
      for (const m of loop) {
        const line = lines.find((l) => l.includes(`model '${m}': UNAVAILABLE`));
        assert.match(line ?? '', cycleMessage(loop), `${m}:\n${r.log}`);
      }
    }
    assert.match(r.log, /model 'fine' version 1: READY/);
    assert.match(r.log, /model 'echo' version 1: READY/);
  } finally {
    repo.remove();
  }
});

test('serve --exit-on-error=true: exits 1 with the loops on stderr', async () => {
  const repo = makeRepo();
  try {
    const r = await serve(repo.dir, ['--exit-on-error=true'], () => Promise.reject(new Error('serve must exit before listening')));
    assert.equal(r.code, 1, r.log);
    assert.match(r.log, /a model failed to load and --exit-on-error=true/);
    for (const loop of LOOPS) assert.match(r.log, cycleMessage(loop));
  } finally {
    repo.remove();
  }
});

test('none mode (in process): every loop refused, the rest loads and answers', { timeout: 60_000 }, async () => {
  await withRepo({}, async (server) => {
    assertLoopsRefused(await reasons(server));
    assert.deepEqual(await echoThrough(server, 'fine'), [4, 5, 6]);
  });
});

test('explicit mode: --load-model and the load API refuse each loop, alone or loaded concurrently', { timeout: 60_000 }, async () => {
  await withRepo({ modelControlMode: 'explicit', loadModels: ['ca', 'fine'] }, async (server) => {
    const start = await reasons(server);
    assert.match(start.ca!, cycleMessage(['ca', 'cb']));
    assert.equal(start.fine, 'READY');

    for (const [model, loop] of [['cb', ['ca', 'cb']], ['self', ['self']], ['c2', ['c1', 'c2', 'c3']], ['uses_ca', ['ca', 'cb']]] as const) {
      const e = await expectError(server.loadModel(model));
      assert.equal(e.kind, 'INVALID_ARG', `${model}: ${e.message}`);
      assert.match(e.message, cycleMessage(loop), model);
    }
    // Two clients loading both ends of the loop at once: each load waits for the other's.
    const both = await Promise.allSettled([server.loadModel('c1'), server.loadModel('c3'), server.loadModel('c2')]);
    for (const r of both) {
      assert.equal(r.status, 'rejected');
      assert.match(String((r as PromiseRejectedResult).reason?.message), cycleMessage(['c1', 'c2', 'c3']));
    }
    assert.deepEqual(await echoThrough(server, 'fine'), [4, 5, 6]);
  });
});

/** A one-step pipeline as the load API's `config` parameter. */
const pipeJson = (name: string, step: string) => JSON.stringify({
  name, platform: 'ensemble', max_batch_size: 8,
  input: [{ name: 'IN', data_type: 'TYPE_INT32', dims: [-1] }], output: [{ name: 'OUT', data_type: 'TYPE_INT32', dims: [-1] }],
  ensemble_scheduling: { step: [{ model_name: step, model_version: -1, input_map: { IN: 'IN' }, output_map: { OUT: 'OUT' } }] },
});

test('explicit mode: a reload that closes a loop through pipelines already serving is refused, and the old version keeps serving', { timeout: 60_000 }, async () => {
  await withRepo({ modelControlMode: 'explicit', loadModels: [] }, async (server) => {
    await server.loadModel('fine'); // fine -> echo
    await server.loadModel('ca', { config: pipeJson('ca', 'fine') }); // ca -> fine -> echo
    assert.deepEqual(await echoThrough(server, 'ca'), [4, 5, 6]);
    const e = await expectError(server.loadModel('fine', { config: pipeJson('fine', 'ca') }));
    assert.match(e.message, /circular dependency between ensembles: fine -> ca -> fine \(fine \(config override\)(:\d+:\d+)? uses 'ca', ca \(config override\)(:\d+:\d+)? uses 'fine'\)/);
    assert.deepEqual(await echoThrough(server, 'fine'), [4, 5, 6]);
    assert.deepEqual(await echoThrough(server, 'ca'), [4, 5, 6]);
  });
});

test('poll mode: loops are refused at start and load once the files break them', { timeout: 60_000 }, async () => {
  await withRepo({ modelControlMode: 'poll', repositoryPollSecs: 0 }, async (server, repo) => {
    assertLoopsRefused(await reasons(server));
    repo.file('cb/config.pbtxt', pipe('cb', 'echo'));
    await server.poll();
    const after = await reasons(server);
    assert.equal(after.cb, 'READY');
    // ca and uses_ca did not change on disk, so the poll does not retry them (as for any failed load).
    assert.match(after.c1!, cycleMessage(['c1', 'c2', 'c3']));
    repo.file('ca/config.pbtxt', pipe('ca', 'cb').replace('max_batch_size: 8', 'max_batch_size: 4'));
    await server.poll();
    assert.equal((await reasons(server)).ca, 'READY');
    assert.deepEqual(await echoThrough(server, 'ca'), [4, 5, 6]);
  });
});
