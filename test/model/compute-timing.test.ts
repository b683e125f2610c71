/**
 * compute_infer of a backend that times nothing itself (identity): the execution ends with its
 * last final response, not after the response's consumer has run. A consumer that works
 * synchronously (here a busy 30 ms; in a pipeline, the next steps) must not count as compute.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

const io = 'input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n';
const step = (m: string, from: string, to: string) => `{ model_name: "${m}" model_version: -1 input_map { key: "X" value: "${from}" } output_map { key: "Y" value: "${to}" } }`;

let repo: TempRepo;
let server: LocalServer;

before(async () => {
  repo = tempRepo({
    'ident/config.pbtxt': `name: "ident"\nbackend: "identity"\nmax_batch_size: 0\n${io}`, 'ident/1/model.identity': '',
    'pipe/config.pbtxt': `name: "pipe"\nplatform: "ensemble"\nmax_batch_size: 0\n${io}ensemble_scheduling { step [ ${step('ident', 'X', 'mid')}, ${step('ident', 'mid', 'Y')} ] }\n`,
  });
  server = await createServer({ modelRepository: repo.dir });
});

after(async () => {
  await server?.close();
  repo?.remove();
});

const inferStats = (model: string) => server.modelStatistics(model).model_stats[0]!.inference_stats;
// A request is counted when its batch ends, which is after its response completed.
const batchesEnded = () => new Promise((resolve) => setImmediate(resolve));

test('the consumer\'s synchronous work after the final response is not compute', async () => {
  const before = inferStats('ident').compute_infer;
  const started = performance.now();
  let delivered = 0;
  await new Promise<void>((resolve, reject) => {
    server.infer({ model: 'ident', inputs: [createTensor('X', 'FP32', [4], [1, 2, 3, 4])] }).subscribe({
      next() {
        delivered = performance.now();
        // eslint-disable-next-line no-empty
        while (performance.now() - delivered < 30) {}
      },
      error: reject,
      complete: resolve,
    });
  });
  await batchesEnded();
  const now = inferStats('ident').compute_infer;
  assert.equal(Number(now.count) - Number(before.count), 1);
  const computeMs = (Number(now.ns) - Number(before.ns)) / 1e6;
  // Ordering, not speed: the compute ended before the response reached its consumer.
  assert.ok(computeMs <= delivered - started, `compute_infer ${computeMs.toFixed(3)} ms, response delivered after ${(delivered - started).toFixed(3)} ms`);
});

test('a pipeline of identity steps: each step\'s compute stays within the pipeline\'s time for it', async () => {
  const before = inferStats('ident');
  for (let i = 0; i < 20; i++) {
    await new Promise<void>((resolve, reject) => {
      server.infer({ model: 'pipe', inputs: [createTensor('X', 'FP32', [4], [1, 2, 3, 4])] }).subscribe({ error: reject, complete: resolve });
    });
  }
  await batchesEnded();
  const stats = server.modelStatistics('pipe').model_stats[0]!;
  const steps = (stats as { step_stats?: { model: string; count: number; ns: number }[] }).step_stats ?? [];
  assert.equal(steps.length, 2);
  const stepNs = steps.reduce((n, s) => n + Number(s.ns), 0);
  const ident = inferStats('ident');
  // Both steps run `ident`: its compute (two executions per pipeline request) against the two steps' time.
  assert.equal(Number(ident.compute_infer.count) - Number(before.compute_infer.count), 40);
  const computeNs = Number(ident.compute_infer.ns) - Number(before.compute_infer.ns);
  assert.ok(computeNs <= stepNs, `ident compute_infer ${computeNs} ns > the steps' ${stepNs} ns`);
});
