import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TributaryError } from '../../../src/errors.js';
import { createServer, type Server } from '../../../src/server/index.js';
import { createTensor } from '../../../src/tensor/index.js';
import { quietLog } from '../../helpers/quiet-log.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { scriptRepo } from './script-repo.js';

// The sender's execute() throws after its responses on purpose, which is logged.
quietLog([/model 'sender': execute\(\) failed: /]);

/**
 * ResponseSender.send queues responses in the sandbox and hands them to the host in batches
 * (bls/host-channel.ts): order, the final flag and a later throw must look as they did unbatched.
 */
const SENDER = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
const out = (i: number) => new InferenceResponse({ outputs: [new Tensor('I', 'INT32', [1], [i])] });
export default class Model {
  execute(requests: Request[]): Promise<void> | void {
    const r = requests[0]!;
    const s = r.responseSender();
    const n = (r.input('N').data as Int32Array)[0]!;
    if (n < 0) {
      // Synchronous: the throw reaches the host before any microtask could flush the queue.
      for (let i = 0; i < -n; i++) s.send(out(i));
      throw new Error('after ' + -n);
    }
    return (async () => {
      for (let i = 0; i < n; i++) {
        s.send(out(i));
        if (i === 100) await Promise.resolve();
      }
      s.send(undefined, { final: true });
    })();
  }
}
`;

describe('decoupled responses sent in batches', () => {
  let repo: TempRepo;
  let server: Server;
  before(async () => {
    repo = scriptRepo({
      sender: {
        config: [
          'max_batch_size: 0',
          'model_transaction_policy { decoupled: true }',
          'input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]',
          'output [ { name: "I" data_type: TYPE_INT32 dims: [ 1 ] } ]',
        ],
        code: SENDER,
      },
    });
    server = await createServer({ modelRepository: repo.dir });
  });
  after(async () => {
    await server.close();
    repo.remove();
  });

  const run = (n: number) => {
    const got: number[] = [];
    return new Promise<{ got: number[]; err: unknown }>((resolve) => {
      server.infer({ model: 'sender', inputs: [createTensor('N', 'INT32', [1], [n])] }).subscribe({
        next: (r) => { if (r.outputs.length) got.push((r.outputs[0]!.data as Int32Array)[0]!); },
        error: (err) => resolve({ got, err }),
        complete: () => resolve({ got, err: undefined }),
      });
    });
  };

  test('more responses than one batch holds arrive in order, then the stream completes', async () => {
    const { got, err } = await run(1000);
    assert.equal(err, undefined);
    assert.deepEqual(got, Array.from({ length: 1000 }, (_, i) => i));
  });

  test('responses queued before a throw reach the client before the error', async () => {
    const { got, err } = await run(-300);
    assert.deepEqual(got, Array.from({ length: 300 }, (_, i) => i));
    assert.ok(err instanceof TributaryError);
    assert.match(err.message, /after 300/);
  });
});
