/**
 * --model-load-thread-count bounds how many models load at once (at start and by poll), and
 * --model-load-retry-count retries a load whose versions fail. The backend here is a real one
 * registered through createServer's `backends` option: it counts loads in flight and fails each
 * model's first attempts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BackendFactory } from '../../src/backend/index.js';
import { Errors } from '../../src/errors.js';
import { setLogSink } from '../../src/logger.js';
import { createIdentityBackend } from '../../backends/identity/index.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { withServer } from '../helpers/with-server.js';

const config = (name: string) => `name: "${name}"\nbackend: "counting"\nmax_batch_size: 0\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n`;

function countingBackend(failuresPerModel: number) {
  const stats = { inFlight: 0, most: 0, attempts: new Map<string, number>() };
  const identity = createIdentityBackend();
  const factory: BackendFactory = {
    name: 'counting',
    defaultModelFilename: 'model.identity',
    async load(cfg, ctx) {
      stats.inFlight++;
      stats.most = Math.max(stats.most, stats.inFlight);
      try {
        // Yield to the event loop so that loads started together are in flight together.
        await new Promise((r) => setTimeout(r, 20));
        const n = (stats.attempts.get(cfg.name) ?? 0) + 1;
        stats.attempts.set(cfg.name, n);
        if (n <= failuresPerModel) throw Errors.modelLoadFailed(cfg.name, `attempt ${n} fails on purpose`);
        return await identity.load(cfg, ctx);
      } finally {
        stats.inFlight--;
      }
    },
  };
  return { factory, stats };
}

function repo(models: number) {
  const files: Record<string, string> = {};
  for (let i = 0; i < models; i++) {
    files[`m${i}/config.pbtxt`] = config(`m${i}`);
    files[`m${i}/1/model.identity`] = '';
  }
  return tempRepo(files);
}

test('at most --model-load-thread-count models load at once at start (Triton default 4)', async () => {
  const r = repo(6);
  try {
    for (const [threads, expected] of [[2, 2], [undefined, 4], [1, 1]] as const) {
      const { factory, stats } = countingBackend(0);
      await withServer({ modelRepository: r.dir, backends: [factory], ...(threads ? { modelLoadThreadCount: threads } : {}) }, async (server) => {
        assert.equal(server.isReady(), true);
        assert.equal(stats.most, expected, `thread count ${threads ?? 'default'}`);
      });
    }
  } finally {
    r.remove();
  }
});

test('--model-load-retry-count: a load that fails twice loads with 2 retries and fails with 1', async () => {
  const r = repo(1);
  const logged: string[] = [];
  setLogSink((line) => logged.push(line));
  try {
    const two = countingBackend(2);
    await withServer({ modelRepository: r.dir, backends: [two.factory], modelLoadRetryCount: 2 }, async (server) => {
      assert.equal(server.modelReady('m0'), true);
      assert.equal(two.stats.attempts.get('m0'), 3);
    });
    assert.ok(logged.some((l) => l.includes("retry 2 of 2")), logged.join('\n'));
    const one = countingBackend(2);
    await withServer({ modelRepository: r.dir, backends: [one.factory], modelLoadRetryCount: 1, modelControlMode: 'explicit' }, async (server) => {
      const e = await server.loadModel('m0').then(() => undefined, (err: Error) => err);
      assert.match(e?.message ?? '', /^load failed for model 'm0': version 1 is at UNAVAILABLE state: Invalid argument: attempt 2 fails on purpose;$/);
      assert.equal(one.stats.attempts.get('m0'), 2);
    });
  } finally {
    setLogSink((line) => process.stderr.write(line + '\n'));
    r.remove();
  }
});
