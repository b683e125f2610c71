/**
 * An experiment's life in the repository, on a real server: weights change by reloading its
 * config (a weight-0 variant gets no new traffic), a variant that does not share the interface
 * fails the load at file:line:col naming the variant and the tensor, a loop through a variant is a
 * dependency cycle, and unload_dependents unloads the variants and the mirror.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastValueFrom } from 'rxjs';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { expectError } from '../helpers/expect-error.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { addConfig, addScript, experimentRepoFiles } from './experiment-repo.js';

quietLog([/failed to load 'mismatch'|failed to load 'loop_exp'|failed to load 'loop_pipe'|circular dependency/]);

const weights = (a: number, b: number) => `name: greet
experiment:
  variants:
    - { model: greet_a, weight: ${a} }
    - { model: greet_b, weight: ${b} }
`;

async function variants(server: LocalServer, n: number): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const r = await lastValueFrom(server.infer({ model: 'greet', inputs: [createTensor('X', 'FP32', [1, 1], [i])] }));
    const v = String(r.parameters?.experiment_variant);
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  return counts;
}

test('reloading the config changes the weights: 100/0, then 0/100 by a config override, then 50/50 from disk', async (t) => {
  const repo = tempRepo(experimentRepoFiles(weights(100, 0)));
  t.after(() => repo.remove());
  const server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['greet'] });
  t.after(() => server.close());
  assert.deepEqual([...await variants(server, 20)], [['greet_a', 20]], 'a weight-0 variant gets no traffic');
  await server.loadModel('greet', { config: JSON.stringify({ name: 'greet', experiment: { variants: [{ model: 'greet_a', weight: 0 }, { model: 'greet_b', weight: 100 }] } }) });
  assert.deepEqual([...await variants(server, 20)], [['greet_b', 20]]);
  repo.file('greet/config.yaml', weights(50, 50));
  await server.loadModel('greet');
  const split = await variants(server, 40);
  assert.equal(split.size, 2, JSON.stringify([...split]));
  // Served once: each reload replaced the version, the variants stayed loaded throughout.
  assert.deepEqual(server.modelStatistics('greet').model_stats.map((m) => m.version), ['1']);
});

test("a variant that does not share the interface fails the load at file:line:col, naming the variant and the tensor", async (t) => {
  const repo = tempRepo({
    ...experimentRepoFiles(),
    'greet_int/config.yaml': addConfig('greet_int', 'TYPE_INT32'), 'greet_int/1/model.ts': addScript(3),
    'mismatch/config.yaml': 'name: mismatch\nexperiment:\n  variants:\n    - { model: greet_a, weight: 1 }\n    - { model: greet_int, weight: 1 }\n  mirror: { model: greet_int }\n',
  });
  t.after(() => repo.remove());
  const server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit' });
  t.after(() => server.close());
  const e = await expectError(server.loadModel('mismatch'));
  // Placed at the variant's `model:` (line 5) and the mirror's (line 6), as the repository names files.
  assert.match(e.message, new RegExp(`mismatch/config.yaml:5:9: error: model 'mismatch': experiment.variants\\[1\\] 'greet_int': input 'X' is TYPE_INT32 \\[1\\], but variant 'greet_a' has TYPE_FP32 \\[1\\]; the variants of an experiment must share one interface`));
  assert.match(e.message, /error: model 'mismatch': experiment.variants\[1\] 'greet_int': output 'Y' is TYPE_INT32 \[1\]/);
  assert.match(e.message, new RegExp(`mismatch/config.yaml:6:13: error: model 'mismatch': experiment.mirror 'greet_int': input 'X' is TYPE_INT32 \\[1\\], but the variants take TYPE_FP32 \\[1\\]`));
  assert.equal(server.modelReady('mismatch'), false);
});

test('a loop through a variant is a dependency cycle; unload_dependents unloads the variants and the mirror', async (t) => {
  const repo = tempRepo({
    ...experimentRepoFiles(),
    'loop_exp/config.yaml': 'name: loop_exp\nexperiment:\n  variants:\n    - { model: loop_pipe }\n',
    'loop_pipe/config.yaml': 'name: loop_pipe\nmax_batch_size: 8\ninput:\n  - { name: X, data_type: TYPE_FP32, dims: [1] }\noutput:\n  - { name: Y, data_type: TYPE_FP32, dims: [1] }\nsteps:\n  - model: loop_exp\n    inputs: { X: X }\n    outputs: { Y: Y }\n',
  });
  t.after(() => repo.remove());
  const server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit' });
  t.after(() => server.close());
  const e = await expectError(server.loadModel('loop_exp'));
  // Which of the two closes the loop depends on which load reaches the other first.
  assert.match(e.message, /circular dependency between ensembles: (loop_exp -> loop_pipe -> loop_exp|loop_pipe -> loop_exp -> loop_pipe)/);
  assert.match(e.message, /loop_exp\/config.yaml:4:9 uses 'loop_pipe'/);

  await server.loadModel('greet');
  for (const m of ['greet', 'greet_a', 'greet_b', 'greet_shadow']) assert.ok(server.modelReady(m), m);
  await server.unloadModel('greet', { unloadDependents: true });
  for (const m of ['greet', 'greet_a', 'greet_b', 'greet_shadow']) assert.equal(server.modelReady(m), false, m);
});
