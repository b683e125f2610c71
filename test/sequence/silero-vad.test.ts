/**
 * Silero VAD served with implicit state (h/c fed from the sequence's last hn/cn), fed a speech-like
 * signal in 512-sample chunks over one sequence through HTTP and gRPC. Every output must equal
 * calling the model directly with onnxruntime-node, h and c threaded by hand.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as ort from 'onnxruntime-node';
import {
  SILERO_FILE, grpcSequenceParameters, httpInfer, rawFloatBytes, rawFloats, sequenceParameters, startSequenceServer,
  type SequenceServer,
} from './sequence-server.js';
import { CHUNK, SAMPLE_RATE, chunks, speechLikeSignal } from './speech-like-signal.js';

const TOLERANCE = 1e-5;
let s: SequenceServer;
let session: ort.InferenceSession;
const signalA = chunks(speechLikeSignal(1.2, 11));
const signalB = chunks(speechLikeSignal(1.0, 29)).reverse();

before(async () => {
  session = await ort.InferenceSession.create(SILERO_FILE, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  s = await startSequenceServer(['silero_vad']);
});
after(async () => {
  await s?.close();
  await session?.release();
});

/** Direct onnxruntime calls; `threaded` false starts every chunk from zero state (a control). */
async function reference(chunkList: readonly Float32Array[], threaded = true): Promise<number[]> {
  const zeros = () => new ort.Tensor('float32', new Float32Array(2 * 64), [2, 1, 64]);
  const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(SAMPLE_RATE)]), []);
  let h: ort.Tensor = zeros();
  let c: ort.Tensor = zeros();
  const out: number[] = [];
  for (const x of chunkList) {
    const r = await session.run({ input: new ort.Tensor('float32', x, [1, CHUNK]), sr, h, c });
    out.push((r.output!.data as Float32Array)[0]!);
    if (threaded) {
      h = r.hn!;
      c = r.cn!;
    }
  }
  return out;
}

function assertClose(got: readonly number[], want: readonly number[], what: string): void {
  assert.equal(got.length, want.length, `${what}: output count`);
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs(got[i]! - want[i]!) <= TOLERANCE, `${what}: chunk ${i}: served ${got[i]} vs direct ${want[i]}`);
  }
}

async function httpStep(id: number | string, x: Float32Array, start: boolean, end: boolean): Promise<number> {
  const r = await httpInfer(s.base, 'silero_vad', {
    parameters: sequenceParameters({ id, start, end }),
    inputs: [{ name: 'input', datatype: 'FP32', shape: [1, CHUNK], data: Array.from(x) }],
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const outs = r.body.outputs.map((o: { name: string }) => o.name);
  assert.deepEqual(outs, ['output'], 'the state outputs hn/cn stay inside the server');
  assert.deepEqual(r.body.outputs[0].shape, [1, 1]);
  return r.body.outputs[0].data[0];
}

async function grpcStep(id: bigint | string, x: Float32Array, start: boolean, end: boolean): Promise<number> {
  const res = await s.grpc.call('ModelInfer', {
    model_name: 'silero_vad',
    parameters: grpcSequenceParameters(id, start, end),
    inputs: [{ name: 'input', datatype: 'FP32', shape: [1, CHUNK] }],
    raw_input_contents: [rawFloatBytes(x)],
  });
  assert.deepEqual(res.outputs.map((o: { name: string }) => o.name), ['output']);
  return rawFloats(res.raw_output_contents[0])[0]!;
}

test('the signal makes the state matter: threaded and stateless direct runs differ', async () => {
  const threaded = await reference(signalA);
  const stateless = await reference(signalA, false);
  const maxDiff = Math.max(...threaded.map((v, i) => Math.abs(v - stateless[i]!)));
  assert.ok(maxDiff > 1e-3, `state changes the outputs (max difference ${maxDiff})`);
  const spread = Math.max(...threaded) - Math.min(...threaded);
  assert.ok(spread > 1e-2, `outputs vary over the signal (spread ${spread})`);
});

test('HTTP: one sequence of chunks equals the direct model with h/c threaded by hand', async () => {
  const want = await reference(signalA);
  const got: number[] = [];
  for (let i = 0; i < signalA.length; i++) got.push(await httpStep(101, signalA[i]!, i === 0, i === signalA.length - 1));
  assertClose(got, want, 'HTTP sequence 101');
});

test('gRPC: a uint64 id past 2^53 and a string id, each equal to the direct model', async () => {
  const want = await reference(signalA);
  const big = 2n ** 60n + 7n;
  const got: number[] = [];
  for (let i = 0; i < signalA.length; i++) got.push(await grpcStep(big, signalA[i]!, i === 0, i === signalA.length - 1));
  assertClose(got, want, `gRPC sequence ${big}`);
  const gotStr: number[] = [];
  for (let i = 0; i < signalA.length; i++) gotStr.push(await grpcStep('mic-1', signalA[i]!, i === 0, i === signalA.length - 1));
  assertClose(gotStr, want, 'gRPC sequence "mic-1"');
});

test('two interleaved sequences keep their own state (HTTP and gRPC mixed, concurrent)', async () => {
  const [wantA, wantB] = [await reference(signalA), await reference(signalB)];
  const n = Math.max(signalA.length, signalB.length);
  const gotA: number[] = [];
  const gotB: number[] = [];
  for (let i = 0; i < n; i++) {
    // Both sequences have a step in flight at once; A over HTTP, B over gRPC.
    const [a, b] = await Promise.all([
      i < signalA.length ? httpStep('A', signalA[i]!, i === 0, i === signalA.length - 1) : undefined,
      i < signalB.length ? grpcStep(2n ** 53n + 1n, signalB[i]!, i === 0, i === signalB.length - 1) : undefined,
    ]);
    if (a !== undefined) gotA.push(a);
    if (b !== undefined) gotB.push(b);
  }
  assertClose(gotA, wantA, 'sequence A');
  assertClose(gotB, wantB, 'sequence B');
});

test('START resets the state of a live sequence', async () => {
  const want = await reference(signalA);
  const got: number[] = [];
  for (let i = 0; i < 8; i++) got.push(await httpStep(202, signalA[i]!, i === 0, false));
  assertClose(got, want.slice(0, 8), 'before the restart');
  // No END was sent: a new START on the same id must begin from the initial (zero) state again.
  const again: number[] = [];
  for (let i = 0; i < signalA.length; i++) again.push(await httpStep(202, signalA[i]!, i === 0, i === signalA.length - 1));
  assertClose(again, want, 'after the restart');
});

test('statistics count the sequences', async () => {
  const stats = s.server.modelStatistics('silero_vad').model_stats[0]!;
  assert.ok(stats.sequence_stats, 'sequence_stats present');
  assert.equal(stats.sequence_stats.active, 0, 'every sequence ended');
  assert.ok(stats.sequence_stats.started >= 6, `started ${stats.sequence_stats.started}`);
  const res = await fetch(`${s.base}/v2/models/silero_vad/stats`);
  const body = await res.json() as { model_stats: Array<{ sequence_stats?: { started: number } }> };
  assert.equal(body.model_stats[0]!.sequence_stats?.started, stats.sequence_stats.started, 'exposed over HTTP');
});
