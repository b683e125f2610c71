/**
 * What a reload does to the counts (docs/metrics.md, "Statistics and metrics across a reload"):
 * the statistics extension belongs to the loaded model, so a reload starts it again at zero, as
 * the step families read from it at scrape time; the nv_inference_* counters belong to the
 * metrics server and keep counting.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startMetricsServer } from '../../src/metrics/index.js';
import { createServer, inferOnce, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { CHAIN_CONFIG, ECHO_CONFIG, int32s, simpleConfig } from '../helpers/model-configs.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

// The chain pipeline leaves OUTPUT1 of its first step unused, and says so.
quietLog([/chain\/config\.pbtxt:\d+:\d+: warning: .* is never used/]);

let repo: TempRepo;
let server: LocalServer;
let metrics: Awaited<ReturnType<typeof startMetricsServer>>;
before(async () => {
  repo = tempRepo({ 'simple/config.pbtxt': simpleConfig(), 'echo/config.pbtxt': ECHO_CONFIG, 'echo/1/.keep': '', 'chain/config.pbtxt': CHAIN_CONFIG });
  repo.onnx('simple', 'simple.onnx');
  server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['chain'] });
  metrics = await startMetricsServer(server, { port: 0, host: '127.0.0.1', config: {} });
});
after(async () => {
  await metrics?.close();
  await server?.close();
  repo.remove();
});

const chain = () => inferOnce(server, { model: 'chain', inputs: [createTensor('A', 'INT32', [1, 16], int32s(16, (i) => i)), createTensor('B', 'INT32', [1, 16], int32s(16, () => 1))] });
const stats = () => server.modelStatistics('chain').model_stats[0]!.inference_stats.success.count;
async function scrape(name: string, labels: string): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.split(',').every((x) => l.includes(x)));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

test('a reload restarts the statistics (and the step families) at zero; nv_inference_* counters keep counting', async () => {
  for (let i = 0; i < 3; i++) await chain();
  assert.equal(stats(), 3);
  assert.equal(await scrape('nv_inference_request_success', 'model="chain"'), 3);
  assert.equal(await scrape('tributary_pipeline_step_success', 'model="chain",step="echo"'), 3);

  await server.loadModel('chain'); // a reload: the model is replaced
  assert.equal(stats(), 0, 'the statistics start again');
  assert.equal(await scrape('nv_inference_request_success', 'model="chain"'), 3, 'the counter does not');
  assert.equal(await scrape('tributary_pipeline_step_success', 'model="chain",step="echo"'), 0, 'read from the statistics: restarts too');
  await chain();
  assert.equal(stats(), 1);
  assert.equal(await scrape('nv_inference_request_success', 'model="chain"'), 4);
});
