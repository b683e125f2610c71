/**
 * Every SDK call over every transport (HTTP binary, HTTP JSON, HTTP gzip, gRPC) against the real
 * server: answers are compared with the in-process Server API, tensors round-trip through the
 * identity backend, streams come from real decoupled TypeScript models, and cancellation is
 * checked on the server's own per-request records.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createGrpcClient, createHttpClient, ClientError, type InferenceClient } from '../../src/client/index.js';
import { Errors } from '../../src/errors.js';
import { createTensor, DATATYPES, reshapeTensor, tensorStrings, type Tensor } from '../../src/tensor/index.js';
import { sampleTensor } from '../frontend/grpc/datatype-samples.js';
import { startClientTestServer, until, type ClientTestServer } from './client-server.js';

let t: ClientTestServer;
const transports: { name: string; client: InferenceClient; http: boolean }[] = [];

before(async () => {
  t = await startClientTestServer();
  transports.push(
    { name: 'http binary', client: createHttpClient({ url: t.httpUrl }), http: true },
    { name: 'http json', client: createHttpClient({ url: t.httpUrl, binary: false }), http: true },
    { name: 'http gzip', client: createHttpClient({ url: t.httpUrl.replace('http://', ''), compression: 'gzip' }), http: true },
    { name: 'grpc', client: createGrpcClient({ address: t.grpcAddress }), http: false },
  );
});
after(async () => {
  for (const x of transports) await x.client.close();
  await t.close();
});

/** A tensor as comparable plain data (BYTES as strings; typed arrays keep their kind's name). */
function plain(x: Tensor) {
  const data = x.datatype === 'BYTES' ? tensorStrings(x) : Array.from(x.data as ArrayLike<number | bigint>);
  return { name: x.name, datatype: x.datatype, shape: [...x.shape], storage: x.data.constructor.name === 'Buffer' ? 'Uint8Array' : x.data.constructor.name, data };
}
const fp32 = (values: number[]) => createTensor('INPUT0', 'FP32', [1, values.length], Float32Array.from(values));
const ramp = () => fp32(Array.from({ length: 16 }, (_, i) => (i * 7) % 16));
const each = (name: string, fn: (c: InferenceClient, http: boolean) => Promise<void>) => {
  for (const kind of ['http binary', 'http json', 'http gzip', 'grpc']) {
    test(`${kind}: ${name}`, async () => {
      const x = transports.find((y) => y.name === kind)!;
      await fn(x.client, x.http);
    });
  }
};

each('health, server and model metadata, config, index', async (c) => {
  assert.equal(await c.isServerLive(), true);
  assert.equal(await c.isServerReady(), true);
  const meta = await c.serverMetadata();
  assert.equal(meta.name, t.server.metadata().name);
  assert.ok(meta.extensions.includes('classification'));
  assert.equal(await c.isModelReady('identity_fp32'), true);
  assert.equal(await c.isModelReady('identity_fp32', '1'), true);
  assert.equal(await c.isModelReady('no_such_model'), false);
  for (const m of ['identity_fp32', 'identity_types', 'streamer']) {
    assert.deepEqual(await c.modelMetadata(m), t.server.modelMetadata(m), m);
  }
  const config = await c.modelConfig('identity_fp32');
  const local = t.server.modelConfig('identity_fp32');
  assert.equal(config.name, local.name);
  assert.equal(config.max_batch_size, local.max_batch_size);
  assert.deepEqual(config.input.map((i) => [i.name, i.data_type, i.dims]), local.input.map((i) => [i.name, i.data_type, i.dims]));
  const index = await c.repositoryIndex();
  const localIndex = await t.server.repositoryIndex();
  assert.deepEqual(index.map((e) => [e.name, e.state]).sort(), localIndex.map((e) => [e.name, e.state]).sort());
  assert.ok(index.length >= 7);
});

each('statistics match the server after an inference', async (c) => {
  await c.infer('identity_fp32', [ramp()]);
  const one = await c.modelStatistics('identity_fp32');
  const local = t.server.modelStatistics('identity_fp32').model_stats[0]!;
  assert.equal(one.model_stats.length, 1);
  assert.equal(one.model_stats[0]!.name, 'identity_fp32');
  assert.equal(one.model_stats[0]!.inference_count, local.inference_count);
  assert.equal(one.model_stats[0]!.inference_stats.success.count, local.inference_stats.success.count);
  assert.ok(local.inference_count >= 1);
  const all = await c.modelStatistics();
  assert.ok(all.model_stats.some((s) => s.name === 'streamer'));
  assert.equal((await c.modelStatistics('identity_fp32', '1')).model_stats[0]!.version, '1');
});

each('unload, load, and load with a config override and files', async (c) => {
  await c.unloadModel('gen');
  assert.equal(await c.isModelReady('gen'), false);
  await c.loadModel('gen');
  assert.equal(await c.isModelReady('gen'), true);
  const config = { ...t.server.modelConfig('gen'), max_batch_size: 4 };
  await c.loadModel('gen', { config });
  assert.equal((await c.modelConfig('gen')).max_batch_size, 4);
  await c.loadModel('gen', { config: JSON.stringify({ ...config, max_batch_size: 2 }), files: { '1/model.identity': new Uint8Array(0) } });
  assert.equal((await c.modelConfig('gen')).max_batch_size, 2);
  await c.unloadModel('gen', { unloadDependents: true });
  await c.loadModel('gen');
  assert.equal((await c.modelConfig('gen')).max_batch_size, 0);
});

each('every datatype round-trips through the identity model', async (c) => {
  const inputs = DATATYPES.map((dt) => {
    const s = sampleTensor(`IN_${dt === 'BYTES' ? 'STRING' : dt}`, dt);
    return reshapeTensor(s, [s.shape.reduce((a, b) => a * b, 1)]);
  });
  const res = await c.infer('identity_types', inputs);
  assert.equal(res.outputs.length, inputs.length);
  for (const i of inputs) {
    const out = res.output(i.name.replace('IN_', 'OUT_'));
    assert.deepEqual({ ...plain(out), name: i.name }, plain(i), i.name);
  }
});

each('infer: id, version, requested outputs, parameters, output()', async (c) => {
  const input = ramp();
  const res = await c.infer('identity_fp32', [input], {
    id: 'req-7', version: '1', outputs: [{ name: 'OUTPUT0', binary: false }], priority: 1, timeoutUs: 5_000_000,
    parameters: { note: 'x', big: 12345678901234n },
  });
  assert.equal(res.modelName, 'identity_fp32');
  assert.equal(res.modelVersion, '1');
  assert.equal(res.id, 'req-7');
  assert.deepEqual({ ...plain(res.output('OUTPUT0')), name: 'INPUT0' }, plain(input));
  assert.throws(() => res.output('NOPE'), { code: Errors.clientOutputMissing.code, message: /has no output 'NOPE' \(it has 'OUTPUT0'\)/ });
});

each('classification returns the top classes as BYTES', async (c) => {
  const input = ramp();
  const values = Array.from(input.data as Float32Array);
  const expected = values.map((v, i) => ({ v, i })).sort((a, b) => b.v - a.v || a.i - b.i).slice(0, 3)
    .map(({ v, i }) => `${v.toFixed(6)}:${i}`);
  const res = await c.infer('identity_fp32', [input], { outputs: [{ name: 'OUTPUT0', classification: 3 }] });
  const out = res.output('OUTPUT0');
  assert.equal(out.datatype, 'BYTES');
  assert.deepEqual(out.shape, [1, 3]);
  assert.deepEqual(tensorStrings(out), expected);
});

each('stream: every response of a decoupled model, then the end', async (c) => {
  const seen: number[] = [];
  for await (const r of c.stream('streamer', [createTensor('N', 'INT32', [1], [4])], { id: 's1' })) {
    assert.equal(r.modelName, 'streamer');
    seen.push((r.output('OUT').data as Int32Array)[0]!);
  }
  assert.deepEqual(seen, [0, 1, 2, 3]);
  // a non-decoupled model streams its one response too
  const one = [];
  for await (const r of c.stream('identity_fp32', [ramp()])) one.push(r);
  assert.equal(one.length, 1);
});

each('stream: an error after the first response ends the loop with ClientError', async (c) => {
  const seen: number[] = [];
  await assert.rejects(async () => {
    for await (const r of c.stream('streamer', [createTensor('N', 'INT32', [1], [-1])])) seen.push((r.output('OUT').data as Int32Array)[0]!);
  }, (e: unknown) => e instanceof ClientError && /negative N/.test(e.message));
  assert.deepEqual(seen, [0]);
});

each('stream: breaking out of the loop cancels the request on the server', async (c) => {
  const ticker = t.record('ticker');
  const tick = t.record('tick');
  try {
    const started = Date.now();
    for await (const r of c.stream('ticker', [createTensor('N', 'INT32', [1], [50])])) {
      assert.equal((r.output('OUT').data as Int32Array)[0], 0);
      break;
    }
    await until(() => ticker.records.length === 1);
    assert.equal(ticker.records[0]!.success, false);
    assert.equal(ticker.records[0]!.reason, 'CANCELED');
    const ticks = tick.records.length;
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(tick.records.length, ticks, 'no more child calls after the cancel');
    assert.ok(Date.now() - started < 2000, 'cancelled long before 50 ticks (5 s)');
  } finally {
    ticker.stop();
    tick.stop();
  }
});

each('stream: aborting the signal cancels the request and rejects with AbortError', async (c) => {
  const ticker = t.record('ticker');
  try {
    const ac = new AbortController();
    const seen: number[] = [];
    await assert.rejects(async () => {
      for await (const r of c.stream('ticker', [createTensor('N', 'INT32', [1], [50])], { signal: ac.signal })) {
        seen.push((r.output('OUT').data as Int32Array)[0]!);
        if (seen.length === 2) ac.abort();
      }
    }, { name: 'AbortError' });
    assert.deepEqual(seen, [0, 1]);
    await until(() => ticker.records.length === 1);
    assert.equal(ticker.records[0]!.reason, 'CANCELED');
  } finally {
    ticker.stop();
  }
});

each('infer: aborting the signal cancels the request', async (c) => {
  const slow = t.record('slow');
  try {
    const ac = new AbortController();
    const started = Date.now();
    const pending = c.infer('slow', [createTensor('INPUT0', 'FP32', [1], [1])], { signal: ac.signal });
    // Abort well after the request reached the server (a loaded machine can take a while to send
    // it), and well before the model's 3 s execution ends: only then is there a CANCELED record.
    setTimeout(() => ac.abort(), 400);
    await assert.rejects(pending, { name: 'AbortError' });
    await until(() => slow.records.length === 1, 5000);
    assert.equal(slow.records[0]!.reason, 'CANCELED');
    assert.ok(Date.now() - started < 2000, 'cancelled long before the 3 s execution');
    await assert.rejects(c.infer('slow', [createTensor('INPUT0', 'FP32', [1], [1])], { signal: ac.signal }), { name: 'AbortError' });
  } finally {
    slow.stop();
  }
});

each('errors keep the server message, status and kind', async (c, http) => {
  const notFound = Errors.modelNotFound('no_such_model').message;
  for (const call of [() => c.infer('no_such_model', [ramp()]), () => c.modelMetadata('no_such_model'), () => c.modelConfig('no_such_model')]) {
    await assert.rejects(call(), (e: unknown) => {
      assert.ok(e instanceof ClientError);
      assert.equal(e.message, notFound);
      assert.equal(e.kind, 'NOT_FOUND');
      if (http) assert.equal(e.status, 404);
      else assert.equal(e.code, 5);
      return true;
    });
  }
  await assert.rejects(c.infer('identity_fp32', [createTensor('INPUT0', 'INT32', [1, 16], new Int32Array(16))]), (e: unknown) => {
    assert.ok(e instanceof ClientError);
    assert.equal(e.kind, 'INVALID_ARG');
    assert.equal(http ? e.status : e.code, http ? 400 : 3);
    assert.match(e.message, /INPUT0.*identity_fp32.*FP32/);
    return true;
  });
  await assert.rejects((async () => { for await (const _ of c.stream('no_such_model', [ramp()])) { /* none */ } })(),
    (e: unknown) => e instanceof ClientError && e.message === notFound);
});

test('grpc: a decoupled model over unary infer is UNSUPPORTED; an unreachable server is UNAVAILABLE', async () => {
  const grpc = transports.find((x) => x.name === 'grpc')!.client;
  await assert.rejects(grpc.infer('streamer', [createTensor('N', 'INT32', [1], [1])]), (e: unknown) =>
    e instanceof ClientError && e.code === 12 && e.kind === 'UNSUPPORTED' && /decoupled/.test(e.message));
  const http = createHttpClient({ url: 'http://127.0.0.1:1' });
  await assert.rejects(http.isServerLive(), (e: unknown) => e instanceof ClientError && e.kind === 'UNAVAILABLE' && e.status === undefined);
  await http.close();
});

test('http: generate and generate_stream', async () => {
  const http = createHttpClient({ url: t.httpUrl });
  try {
    const g = await http.generate('gen', { id: 'g1', text_input: 'hello' });
    assert.equal(g.text_output, 'hello');
    assert.equal(g.id, 'g1');
    const outs = [];
    for await (const e of http.generateStream('streamer', { N: 3 })) outs.push(e.OUT);
    assert.deepEqual(outs, [0, 1, 2]);
    await assert.rejects(http.generate('streamer', { N: 2 }), (e: unknown) => e instanceof ClientError && e.status === 400);
  } finally {
    await http.close();
  }
});
