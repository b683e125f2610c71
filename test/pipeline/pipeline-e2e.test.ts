/**
 * End to end: the real server loads the fixture repositories (identity backend, pbtxt and YAML
 * pipelines) and runs pipelines through its in-process API.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { lastValueFrom, toArray } from 'rxjs';
import { createServer, type Server } from '../../src/server/index.js';
import { createTensor, type Tensor } from '../../src/tensor/index.js';
import { quietLog } from '../helpers/quiet-log.js';

// bad_pipeline's step-contribution warning is provoked on purpose.
quietLog([/bad_pipeline\/config\.pbtxt:\d+:\d+: warning:/]);

const fixtures = fileURLToPath(new URL('../fixtures/pipelines/', import.meta.url));
const input = (values: number[]) => createTensor('IN', 'FP32', [1, 4], values);
const vals = (t: Tensor | undefined) => (t ? Array.from(t.data as Float32Array) : []);

let server: Server;
before(async () => {
  server = await createServer({ modelRepository: `${fixtures}repo`, modelControlMode: 'none' });
});
after(async () => {
  await server?.close();
});

async function infer(model: string, values: number[]) {
  return lastValueFrom(server.infer({ model, inputs: [input(values)] }).pipe(toArray()));
}

test('the diamond pipeline: two 50 ms identity branches overlap, outputs are the input', async () => {
  assert.ok(server.modelReady('diamond'));
  await infer('diamond', [0, 0, 0, 0]); // warm
  const t0 = performance.now();
  const responses = await infer('diamond', [1, 2, 3, 4]);
  const ms = performance.now() - t0;
  assert.equal(responses.length, 1);
  assert.equal(responses[0]!.final, true);
  const byName = new Map(responses[0]!.outputs.map((t) => [t.name, t]));
  assert.deepEqual(vals(byName.get('LEFT')), [1, 2, 3, 4]);
  assert.deepEqual(vals(byName.get('RIGHT')), [1, 2, 3, 4]);
  // Overlap is read from the statistics below (steps' time against the pipeline's wall time),
  // which a loaded machine stretches alike; a wall-clock ceiling would only measure the load.
  assert.ok(ms >= 49, `diamond took ${ms.toFixed(1)} ms, less than one branch's delay`);
  const stats = server.modelStatistics('diamond').model_stats[0]!;
  assert.deepEqual(stats.step_stats?.map((s) => [s.step, s.count]), [['ident', 2], ['slow_a', 2], ['slow_b', 2], ['pair', 2]]);
  const summed = stats.step_stats!.reduce((a, s) => a + s.ns, 0);
  assert.equal(stats.wall?.count, 2);
  assert.ok(summed > stats.wall!.ns * 1.5, 'parallel branches do not look sequential');
});

test('the YAML `steps:` pipeline and a nested pipeline run end to end', async () => {
  const chain = await infer('chain3', [5, 6, 7, 8]);
  assert.deepEqual(vals(chain[0]!.outputs[0]), [5, 6, 7, 8]);
  const nested = await infer('nested', [9, 8, 7, 6]);
  assert.equal(nested[0]!.outputs[0]!.name, 'OUT');
  assert.deepEqual(vals(nested[0]!.outputs[0]), [9, 8, 7, 6]);
  assert.equal(server.modelStatistics('chain3').model_stats[0]!.step_stats?.length, 3);
});

test('cancelling a pipeline request cancels its running steps', async () => {
  const before = server.modelStatistics('slow_a').model_stats[0]!.inference_stats.fail.count;
  const sub = server.infer({ model: 'diamond', inputs: [input([1, 1, 1, 1])] }).subscribe({ error: () => {} });
  await new Promise((r) => setTimeout(r, 15));
  sub.unsubscribe();
  await new Promise((r) => setTimeout(r, 5));
  const stats = server.modelStatistics('slow_a').model_stats[0]!.inference_stats;
  assert.equal(stats.fail.count, before + 1, 'the running slow_a step was cancelled, not completed');
});

test('a broken pipeline fails to load with every problem at file:line:col', async () => {
  const broken = await createServer({ modelRepository: `${fixtures}broken`, modelControlMode: 'explicit' });
  try {
    await assert.rejects(broken.loadModel('bad_pipeline'), (e: Error) => {
      const m = e.message;
      assert.match(m, /Invalid argument: in ensemble bad_pipeline, ensemble tensor IN: inconsistent data type: TYPE_INT32 is inferred from model bad_pipeline while TYPE_FP32 is inferred from model ident; .*step 'ident#0' \(step\[0\], model 'ident'\): input 'INPUT0' expects FP32 \[-1,4\] but tensor 'IN' from the pipeline input is INT32 \[-1,4\]; bad_pipeline\/config\.pbtxt:\d+:\d+/);
      assert.match(m, /step 'ident#1'.*input 'INPUT0' reads tensor 'nowhere'.*; bad_pipeline\/config\.pbtxt:\d+:\d+/);
      assert.match(m, /in ensemble bad_pipeline, ensemble tensor unused is mapped from non-existing output OUTPUT9 in model ident; .*model 'ident' has no output 'OUTPUT9'.*; bad_pipeline\/config\.pbtxt:\d+:\d+/);
      return true;
    });
  } finally {
    await broken.close();
  }
});
