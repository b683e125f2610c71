import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTensor, tensorStrings, type Tensor } from '../../../src/tensor/index.js';
import type { InferenceRequest } from '../../../src/inference/index.js';
import type { Server } from '../../../src/server/index.js';
import { TributaryError } from '../../../src/errors.js';
import { bertTokenizerJson } from '../../fixtures/bls/bert-tokenizer-json.js';
import { quietLog } from '../../helpers/quiet-log.js';
import { blsServer, inferAll } from './bls-repo.js';

// bad_import and type_error fail to load on purpose; misbehave and hog are killed by their limits,
// and the execute() of misbehave, caller (a call to an unknown model) and escape (no `process`)
// throws, which is logged as a warning.
quietLog([
  /load failed for model '(bad_import|type_error)'/,
  /model '(misbehave|hog)': script (ran past its time limit|exceeded its memory limit)/,
  /model '(misbehave|caller|escape)': execute\(\) failed: /,
]);

const out = (ts: Tensor[], name: string) => {
  const t = ts.find((x) => x.name === name);
  assert.ok(t, `output ${name} present`);
  return t;
};
const fails = async (p: Promise<unknown>): Promise<TributaryError> => {
  try { await p; } catch (e) { assert.ok(e instanceof TributaryError, `TributaryError, got ${String(e)}`); return e; }
  assert.fail('expected a failure');
};

describe('typescript backend through a real server', () => {
  let server: Server;
  before(async () => {
    server = await blsServer(
      ['transform', 'tokenize', 'ident', 'slow_ident', 'caller', 'fanout', 'streamer', 'stream_reader', 'misbehave', 'hog', 'escape', 'bad_import', 'type_error'],
      { 'tokenize/tokenizer.json': await bertTokenizerJson() },
    );
  });
  after(() => server.close());
  const run = (req: InferenceRequest) => inferAll(server, req);

  test('a script transforms numeric and BYTES tensors', async () => {
    const [r] = await run({ model: 'transform', inputs: [
      createTensor('X', 'FP32', [3], [1, 2.5, -4]),
      createTensor('WORDS', 'BYTES', [2], ['héllo', 'wörld 😀']),
    ] });
    assert.deepEqual([...(out(r!.outputs, 'Y').data as Float32Array)], [3, 6, -7]);
    assert.deepEqual(tensorStrings(out(r!.outputs, 'SHOUT')), ['HÉLLO!', 'WÖRLD 😀!']);
  });

  test('a script tokenizes with a real BERT vocabulary inside the sandbox', async () => {
    const [r] = await run({ model: 'tokenize', inputs: [createTensor('TEXT', 'BYTES', [1], ['Hello world!'])] });
    assert.deepEqual([...(out(r!.outputs, 'input_ids').data as BigInt64Array)].map(Number), [101, 7592, 2088, 999, 102]);
    assert.deepEqual(out(r!.outputs, 'input_ids').shape, [1, 5]);
    assert.deepEqual([...(out(r!.outputs, 'attention_mask').data as BigInt64Array)].map(Number), [1, 1, 1, 1, 1]);
  });

  test('a BLS call reaches another model and its data comes back', async () => {
    const [r] = await run({ model: 'caller', inputs: [createTensor('X', 'FP32', [3], [1, 2, 3])] });
    assert.deepEqual([...(out(r!.outputs, 'Y').data as Float32Array)], [4, 6, 8]);
  });

  test('tensors too large for the scratch buffer take the clone lane both ways, BLS child included', async () => {
    const n = 40_000; // 160 KB of FP32: more than the 64 KiB scratch buffer
    const body = new Float32Array(n + 8);
    for (let i = 0; i < body.length; i++) body[i] = i % 1000;
    // A view into a larger buffer, as a request body would be: only its own bytes may cross.
    const x = createTensor('X', 'FP32', [n], body.subarray(8));
    const [r] = await run({ model: 'caller', inputs: [x] });
    const y = out(r!.outputs, 'Y').data as Float32Array;
    assert.equal(y.length, n);
    for (const i of [0, 1, 991, n - 1]) assert.equal(y[i], ((i + 8) % 1000 + 1) * 2); // caller: (x + 1) through ident, then doubled
  });

  test('a failed BLS call rejects with the callee error, kind kept, position in model.ts', async () => {
    const e = await fails(run({ model: 'caller', inputs: [createTensor('X', 'FP32', [1], [1])], parameters: { target: 'nope' } }));
    assert.equal(e.kind, 'NOT_FOUND');
    assert.match(e.message, /model 'caller'/);
    assert.match(e.message, /'nope'/);
    assert.match(e.message, /1\/model\.ts:\d+:\d+/);
  });

  test('a decoupled script sends any number of responses, zero included', async () => {
    const three = await run({ model: 'streamer', inputs: [createTensor('N', 'INT32', [1], [3])] });
    assert.deepEqual(three.filter((r) => r.outputs.length).map((r) => (r.outputs[0]!.data as Int32Array)[0]), [0, 1, 2]);
    assert.equal(three.at(-1)!.final, true);
    const none = await run({ model: 'streamer', inputs: [createTensor('N', 'INT32', [1], [0])] });
    assert.equal(none.filter((r) => r.outputs.length).length, 0);
  });

  test('a script streams from a decoupled model and may leave the loop early', async () => {
    const all = await run({ model: 'stream_reader', inputs: [createTensor('N', 'INT32', [1], [5]), createTensor('STOP', 'INT32', [1], [99])] });
    assert.deepEqual([...(out(all[0]!.outputs, 'SEEN').data as Int32Array)], [0, 1, 2, 3, 4]);
    const two = await run({ model: 'stream_reader', inputs: [createTensor('N', 'INT32', [1], [5]), createTensor('STOP', 'INT32', [1], [2])] });
    assert.deepEqual([...(out(two[0]!.outputs, 'SEEN').data as Int32Array)], [0, 1]);
  });

  test('children started with Promise.all join the callee dynamic batcher', async () => {
    const counts = () => {
      const st = server.modelStatistics('ident').model_stats[0]!;
      return { inferences: st.inference_count, executions: st.execution_count };
    };
    const start = counts();
    const [r] = await run({ model: 'fanout', inputs: [createTensor('N', 'INT32', [1], [6])] });
    assert.equal((out(r!.outputs, 'SUM').data as Float32Array)[0], 0 + 1 + 2 + 3 + 4 + 5);
    let end = counts();
    // statistics are recorded as each request completes, just after its response is delivered
    for (let i = 0; i < 100 && end.inferences - start.inferences < 6; i++) {
      await new Promise((res) => setTimeout(res, 10));
      end = counts();
    }
    assert.equal(end.inferences - start.inferences, 6);
    const executions = end.executions - start.executions;
    assert.ok(executions < 6, `6 children ran in ${executions} batches`);
  });

  test('children started with Promise.all are in flight together', async () => {
    const t0 = performance.now();
    const [r] = await run({ model: 'fanout', inputs: [createTensor('N', 'INT32', [1], [4])], parameters: { target: 'slow_ident' } });
    const ms = performance.now() - t0;
    assert.equal((out(r!.outputs, 'SUM').data as Float32Array)[0], 6);
    assert.ok(ms < 2 * 150, `4 children of 150 ms each took ${ms.toFixed(0)} ms (sequential would be 600)`);
  });

  test('cancelling the parent request cancels its BLS children', async () => {
    const successes = () => server.modelStatistics('slow_ident').model_stats[0]!.inference_stats.success.count;
    const start = successes();
    const sub = server.infer({ model: 'caller', inputs: [createTensor('X', 'FP32', [2], [1, 2])], parameters: { target: 'slow_ident' } })
      .subscribe({ error: () => {} });
    await new Promise((res) => setTimeout(res, 30));
    sub.unsubscribe();
    await new Promise((res) => setTimeout(res, 300)); // past the child's 150 ms delay
    assert.equal(successes(), start, 'the child never completed');
  });

  test('a throwing script fails its request with model.ts:line:col; the next request works', async () => {
    const x = createTensor('X', 'FP32', [1], [0]);
    const e = await fails(run({ model: 'misbehave', inputs: [x], parameters: { mode: 'throw' } }));
    assert.equal(e.code, 'TRB_SCRIPT_ERROR');
    assert.match(e.message, /model 'misbehave'/);
    assert.match(e.message, /the script broke on purpose/);
    assert.match(e.message, /1\/model\.ts:11:15/);
    const bad = await fails(run({ model: 'misbehave', inputs: [x], parameters: { mode: 'reject' } }));
    assert.equal(bad.kind, 'INVALID_ARG');
    assert.match(bad.message, /X must not be empty/);
    const [ok] = await run({ model: 'misbehave', inputs: [x] });
    assert.ok((ok!.outputs[0]!.data as Float32Array)[0]! >= 1);
  });

  test('a script looping past timeout_ms fails, its isolate is replaced, others keep working', async () => {
    const x = createTensor('X', 'FP32', [1], [0]);
    const [warm] = await run({ model: 'misbehave', inputs: [x] });
    assert.ok((warm!.outputs[0]!.data as Float32Array)[0]! >= 1);
    const looping = fails(run({ model: 'misbehave', inputs: [x], parameters: { mode: 'loop' } }));
    const other = run({ model: 'transform', inputs: [createTensor('X', 'FP32', [1], [1])] });
    const e = await looping;
    assert.equal(e.code, 'TRB_SCRIPT_LIMIT');
    assert.match(e.message, /model 'misbehave'.*time limit of 200 ms/);
    assert.equal(((await other)[0]!.outputs[0]!.data as Float32Array)[0], 3);
    const [fresh] = await run({ model: 'misbehave', inputs: [x] });
    assert.equal((fresh!.outputs[0]!.data as Float32Array)[0], 1, 'a fresh isolate counts from 1');
  });

  test('a script allocating without bound hits memory_limit_mb, its isolate is replaced', async () => {
    const x = createTensor('X', 'FP32', [1], [0]);
    const e = await fails(run({ model: 'hog', inputs: [x], parameters: { mode: 'hog' } }));
    assert.equal(e.code, 'TRB_SCRIPT_LIMIT');
    assert.match(e.message, /model 'hog'.*memory limit of 32 MB/);
    const [fresh] = await run({ model: 'hog', inputs: [x] });
    assert.equal((fresh!.outputs[0]!.data as Float32Array)[0], 1);
    // and again: the spare that replaced it was itself replaced
    await fails(run({ model: 'hog', inputs: [x], parameters: { mode: 'hog' } }));
    const [again] = await run({ model: 'hog', inputs: [x] });
    assert.equal((again!.outputs[0]!.data as Float32Array)[0], 1);
  });

  test('process, require, fetch and import() are not reachable', async () => {
    const [r] = await run({ model: 'escape', inputs: [createTensor('X', 'FP32', [1], [0])] });
    const report = tensorStrings(out(r!.outputs, 'REPORT'));
    assert.match(report[0]!, /^process: ReferenceError: process is not defined/);
    // the bundler turns a bare `require` into its own shim, which refuses every module
    assert.match(report[1]!, /^require: (ReferenceError: require is not defined|Error: Dynamic require of "fs" is not supported)/);
    assert.match(report[2]!, /^fetch: ReferenceError: fetch is not defined/);
    assert.match(report[3]!, /^import: /);
    assert.doesNotMatch(report[3]!, /: ok /);
    assert.equal(report[4], 'Function: ok undefined');
    const e = await fails(run({ model: 'escape', inputs: [createTensor('X', 'FP32', [1], [0])], parameters: { exit: true } }));
    assert.match(e.message, /ReferenceError: process is not defined \(at 1\/model\.ts:\d+:\d+\)/);
  });

  test('a script importing a Node built-in fails to load, naming model, file and import', async () => {
    const entry = (await server.repositoryIndex()).find((m) => m.name === 'bad_import');
    assert.equal(entry?.state, 'UNAVAILABLE');
    assert.match(entry!.reason, /bad_import/);
    assert.match(entry!.reason, /1\/model\.ts:1:\d+/);
    assert.match(entry!.reason, /'node:fs'/);
  });

  test('a script with a type error fails to load with file:line:col', async () => {
    const entry = (await server.repositoryIndex()).find((m) => m.name === 'type_error');
    assert.equal(entry?.state, 'UNAVAILABLE');
    assert.match(entry!.reason, /1\/model\.ts:6:13: TS2322/);
  });
});
