/**
 * `server.start`: the front ends' way in without an Observable (src/inference/response-sink.ts).
 * It answers as `infer` does, refuses on the sink at once, and its stop cancels the request where
 * it is, counted CANCELED like an unsubscribe.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import type { InferenceResponse, ResponseSink } from '../../src/inference/index.js';
import { Errors } from '../../src/errors.js';
import { ECHO_CONFIG } from '../helpers/model-configs.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

let repo: TempRepo;
let server: LocalServer;

before(async () => {
  repo = tempRepo({
    'echo/config.pbtxt': ECHO_CONFIG,
    'echo/1/.keep': '',
    'slow/config.pbtxt': ECHO_CONFIG.replace('"echo"', '"slow"') + 'parameters [ { key: "execute_delay_ms" value: { string_value: "2000" } } ]\n',
    'slow/1/.keep': '',
  });
  server = await createServer({ modelRepository: repo.dir });
});

after(async () => {
  await server.close();
  repo.remove();
});

const input = () => [createTensor('IN', 'INT32', [1, 3], new Int32Array([1, 2, 3]))];

/** A sink that records, and resolves when the request ended. */
function recordingSink() {
  const got: (InferenceResponse | Error | 'complete')[] = [];
  let ended!: () => void;
  const done = new Promise<void>((r) => { ended = r; });
  const sink: ResponseSink = { next: (r) => got.push(r), error: (e) => { got.push(e as Error); ended(); }, complete: () => { got.push('complete'); ended(); } };
  return { got, sink, done };
}

test('a request started on a plain sink is answered as infer answers it', async () => {
  const { got, sink, done } = recordingSink();
  server.start!({ model: 'echo', inputs: input() }, sink);
  await done;
  assert.equal(got.length, 2);
  const r = got[0] as InferenceResponse;
  assert.deepEqual([...(r.outputs[0]!.data as Int32Array)], [1, 2, 3]);
  assert.equal(got[1], 'complete');
});

test('a request the model refuses fails on the sink before start returns, with no stop', () => {
  const { got, sink } = recordingSink();
  const stop = server.start!({ model: 'echo', inputs: [createTensor('NOPE', 'INT32', [1, 1], new Int32Array(1))] }, sink);
  assert.equal(stop, undefined);
  assert.equal(got.length, 1);
  assert.match((got[0] as Error).message, /NOPE/);
});

test('an unknown model fails on the sink, as infer fails', async () => {
  const { got, sink, done } = recordingSink();
  server.start!({ model: 'nosuch', inputs: input() }, sink);
  await done;
  assert.equal((got[0] as { kind?: string }).kind, 'NOT_FOUND');
});

test('stop cancels a running request: nothing more reaches the sink, and it is counted CANCELED', async () => {
  const before = server.modelStatistics('slow').model_stats[0]!.inference_stats.fail.count;
  const { got, sink } = recordingSink();
  const stop = server.start!({ model: 'slow', inputs: input() }, sink)!;
  await new Promise((r) => setTimeout(r, 50));
  stop();
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(got.filter((x) => !Errors.cancelled.is(x)), [], 'at most the cancellation itself');
  assert.equal(server.modelStatistics('slow').model_stats[0]!.inference_stats.fail.count, before + 1);
});
