/**
 * A decoupled step inside a pipeline, end to end through the real server: every response of the
 * streaming step (a TypeScript model in a sandbox) runs the downstream step again (an identity
 * model), and the pipeline streams one response per completion, then its final flag.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { lastValueFrom, toArray } from 'rxjs';
import { createServer, type Server } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

const STREAMER = join(import.meta.dirname, '..', 'fixtures', 'http', 'streamer');

let repo: TempRepo;
let server: Server;

before(async () => {
  repo = tempRepo({
    'streamer/config.pbtxt': readFileSync(join(STREAMER, 'config.pbtxt'), 'utf8'),
    'streamer/1/model.ts': readFileSync(join(STREAMER, '1', 'model.ts'), 'utf8'),
    'echo/config.pbtxt': `name: "echo"
backend: "identity"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]`,
    'echo/1/.keep': '',
    'counted/config.pbtxt': `name: "counted"
platform: "ensemble"
max_batch_size: 0
input [ { name: "COUNT" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "VALUE" data_type: TYPE_INT32 dims: [ 1 ] } ]
model_transaction_policy { decoupled: true }
ensemble_scheduling {
  step [
    { model_name: "streamer" model_version: -1 input_map { key: "N" value: "COUNT" } output_map { key: "OUT" value: "n" } },
    { model_name: "echo" model_version: -1 input_map { key: "IN" value: "n" } output_map { key: "OUT" value: "VALUE" } }
  ]
}`,
  });
  server = await createServer({ modelRepository: repo.dir });
});

after(async () => {
  await server.close();
  repo.remove();
});

test('each response of a decoupled step triggers the downstream step; the pipeline streams them', async () => {
  const all = await lastValueFrom(server.infer({ model: 'counted', inputs: [createTensor('COUNT', 'INT32', [1], [4])] }).pipe(toArray()));
  const values = all.filter((r) => r.outputs.length).map((r) => [...(r.outputs[0]!.data as Int32Array)][0]);
  assert.deepEqual(values.sort(), [0, 1, 2, 3]);
  assert.equal(all[all.length - 1]!.final, true);
  assert.equal(all.filter((r) => r.final).length, 1);
});

test('zero responses from the decoupled step: the pipeline ends with only its final flag', async () => {
  const all = await lastValueFrom(server.infer({ model: 'counted', inputs: [createTensor('COUNT', 'INT32', [1], [0])] }).pipe(toArray()));
  assert.equal(all.filter((r) => r.outputs.length).length, 0);
  assert.equal(all[all.length - 1]?.final, true);
});

test('an error from the decoupled step mid-stream fails the pipeline naming the step', async () => {
  await assert.rejects(
    lastValueFrom(server.infer({ model: 'counted', inputs: [createTensor('COUNT', 'INT32', [1], [-1])] }).pipe(toArray())),
    (e: Error) => /^in ensemble 'counted', .*negative N.*; at step 'streamer'$/.test(e.message),
  );
});
