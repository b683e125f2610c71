/**
 * An experiment's hop to its variant extends the request's call chain: a variant script that calls
 * the experiment back, with its one instance held, is refused at once naming the whole chain
 * (experiment included) instead of waiting for itself forever.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastValueFrom } from 'rxjs';
import { createServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { addConfig } from './experiment-repo.js';

quietLog([/BLS call cycle/]);

const LOOPER = `
import { InferenceRequest, InferenceResponse, type Request } from 'tributary/bls';
export default class Looper {
  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    return Promise.all(requests.map(async (r) => {
      const res = await new InferenceRequest({ model: 'loop', inputs: [r.input('X')], outputs: ['Y'] }).exec();
      return new InferenceResponse({ outputs: [res.output('Y')] });
    }));
  }
}
`;

test('a variant that calls its experiment back is refused, naming the chain through the experiment', async (t) => {
  const repo = tempRepo({
    'looper/config.yaml': `${addConfig('looper')}instance_group: [{ count: 1 }]\n`, 'looper/1/model.ts': LOOPER,
    'loop/config.yaml': 'name: loop\nexperiment:\n  variants:\n    - { model: looper }\n',
  });
  t.after(() => repo.remove());
  const server = await createServer({ modelRepository: repo.dir });
  t.after(() => server.close());
  await assert.rejects(
    lastValueFrom(server.infer({ model: 'loop', inputs: [createTensor('X', 'FP32', [1, 1], [1])] })),
    /BLS call cycle 'loop' -> 'looper' -> 'loop' -> 'looper'/,
  );
});
