/**
 * ServerOptions.loadOnDemand (run-model): in explicit mode, a request for a model of the
 * repositories that is not loaded loads it first, once, even when requests for it arrive together;
 * a load that fails answers with its reason and is not tried again; without the option, the
 * request is refused as before.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer, inferOnce } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { expectError } from '../helpers/expect-error.js';
import { ECHO_CONFIG } from '../helpers/model-configs.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

let repo: TempRepo;
before(() => {
  repo = tempRepo({
    'echo/config.pbtxt': ECHO_CONFIG, 'echo/1/.keep': '',
    'py/config.pbtxt': 'name: "py"\nbackend: "python"\nmax_batch_size: 0\n', 'py/1/model.py': '',
  });
});
after(() => repo.remove());
quietLog([]);

const echo = (model = 'echo') => inferOnce(SERVER!, { model, inputs: [createTensor('IN', 'INT32', [1, 2], new Int32Array([4, 5]))] });
let SERVER: Awaited<ReturnType<typeof createServer>> | undefined;

test('a request loads an unloaded model once, however many arrive together', async () => {
  SERVER = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadOnDemand: true });
  try {
    assert.equal(SERVER.modelReady('echo', ''), false, 'nothing loads at start');
    const answers = await Promise.all([echo(), echo(), echo()]);
    for (const a of answers) assert.deepEqual([...(a.outputs[0]!.data as Int32Array)], [4, 5]);
    assert.equal(SERVER.modelReady('echo', ''), true);
    const index = await SERVER.repositoryIndex();
    assert.deepEqual(index.filter((m) => m.state === 'READY').map((m) => m.name), ['echo'], 'only the model asked for');
    // One load: a second would have replaced the model, and its statistics with it.
    assert.equal(SERVER.modelStatistics('echo').model_stats[0]!.inference_stats.success.count, 3);

    const first = await expectError(echo('py'));
    assert.match(first.message, /unknown backend 'python'/);
    const again = await expectError(echo('py'));
    assert.equal(again.message, first.message, 'the failed load answers again, unchanged');
    const absent = await expectError(echo('absent'));
    assert.match(absent.message, /'absent'/);
  } finally {
    await SERVER.close();
  }
});

test('without loadOnDemand a model that is not loaded is refused', async () => {
  SERVER = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit' });
  try {
    await expectError(echo());
    assert.equal(SERVER.modelReady('echo', ''), false);
  } finally {
    await SERVER.close();
  }
});
