/**
 * Sequence requests over the real HTTP and gRPC front ends on accumulator models (ONNX and
 * TypeScript): ids of every form, control inputs as the model sees them, missing START, idle
 * release, and the statistics.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import {
  grpcSequenceParameters, httpInfer, rawFloatBytes, sequenceParameters, startSequenceServer, until,
  type SequenceParams, type SequenceServer,
} from './sequence-server.js';

let s: SequenceServer;
before(async () => {
  s = await startSequenceServer(['accumulator_onnx', 'accumulator_ts', 'accumulator_controls', 'accumulator_idle']);
});
after(async () => s?.close());

async function httpAdd(model: string, seq: SequenceParams, value: number): Promise<{ status: number; body: any }> {
  return httpInfer(s.base, model, {
    parameters: sequenceParameters(seq),
    inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1], data: [value] }],
  });
}

async function httpSum(model: string, seq: SequenceParams, value: number): Promise<number> {
  const r = await httpAdd(model, seq, value);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.outputs.find((o: { name: string }) => o.name === 'OUTPUT').data[0];
}

function grpcAdd(model: string, id: bigint | string, start: boolean, end: boolean, value: number) {
  return s.grpc.call('ModelInfer', {
    model_name: model,
    parameters: grpcSequenceParameters(id, start, end),
    inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1] }],
    raw_input_contents: [rawFloatBytes(Float32Array.of(value))],
  });
}

function outputOf(res: any, name: string): Buffer {
  const i = res.outputs.findIndex((o: { name: string }) => o.name === name);
  assert.ok(i >= 0, `output ${name} in ${res.outputs.map((o: { name: string }) => o.name)}`);
  return res.raw_output_contents[i];
}

function firstFloat(res: any, name: string): number {
  return new Float32Array(Uint8Array.from(outputOf(res, name)).buffer)[0]!;
}

for (const model of ['accumulator_onnx', 'accumulator_ts']) {
  test(`${model}: HTTP integer and string ids accumulate per sequence, interleaved`, async () => {
    const values = [3, 1, 4, 1, 5];
    const sums: Record<string, number[]> = { a: [], b: [] };
    for (let i = 0; i < values.length; i++) {
      const last = i === values.length - 1;
      sums.a!.push(await httpSum(model, { id: 17, start: i === 0, end: last }, values[i]!));
      sums.b!.push(await httpSum(model, { id: 'user-42', start: i === 0, end: last }, 10 * values[i]!));
    }
    assert.deepEqual(sums.a, [3, 4, 8, 9, 14]);
    assert.deepEqual(sums.b, [30, 40, 80, 90, 140]);
  });

  test(`${model}: gRPC uint64 id past 2^53 keeps its own state next to its neighbour`, async () => {
    const big = 2n ** 63n + 5n;
    const neighbour = big + 1n; // equal to `big` as a double: a lossy id would merge the two
    assert.equal(Number(big), Number(neighbour));
    await grpcAdd(model, big, true, false, 1);
    await grpcAdd(model, neighbour, true, false, 1000);
    const r1 = await grpcAdd(model, big, false, true, 2);
    const r2 = await grpcAdd(model, neighbour, false, true, 2000);
    assert.equal(firstFloat(r1, 'OUTPUT'), 3);
    assert.equal(firstFloat(r2, 'OUTPUT'), 3000);
  });
}

test('HTTP: a request for an unknown sequence without START is a clear 400', async () => {
  const r = await httpAdd('accumulator_onnx', { id: 999_001 }, 1);
  assert.equal(r.status, 400);
  assert.match(r.body.error, /^inference request for sequence 999001 to model 'accumulator_onnx' must specify the START flag on the first request of the sequence$/);
});

test('HTTP: a JSON sequence_id keeps all 64 bits; past 2^64 it is refused clearly rather than rounded', async () => {
  const send = (id: string) => fetch(`${s.base}/v2/models/accumulator_onnx/infer`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: `{"parameters":{"sequence_id":${id},"sequence_start":true,"sequence_end":true},`
      + '"inputs":[{"name":"INPUT","datatype":"FP32","shape":[1,1],"data":[1]}]}',
  });
  const max = await send('18446744073709551615');
  assert.equal(max.status, 200, await max.clone().text());
  const past = await send('18446744073709551616');
  assert.equal(past.status, 400);
  assert.match(((await past.json()) as { error: string }).error, /sequence_id.*18446744073709551616/);
});

test('HTTP: a sequence request without an id is a clear 400', async () => {
  const r = await httpInfer(s.base, 'accumulator_onnx', { inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1], data: [1] }] });
  assert.equal(r.status, 400);
  assert.match(r.body.error, /^inference request to model '[^']+' must specify a non-zero or non-empty correlation ID; send it as the request's sequence_id parameter$/);
});

test('gRPC: an unknown sequence without START is INVALID_ARGUMENT, and so is a request after END', async () => {
  await assert.rejects(grpcAdd('accumulator_onnx', 'never-started', false, false, 1), (e: any) => {
    assert.equal(e.code, status.INVALID_ARGUMENT);
    assert.match(e.details, /^inference request for sequence never-started to model 'accumulator_onnx' must specify the START flag on the first request of the sequence$/);
    return true;
  });
  await grpcAdd('accumulator_onnx', 'ended', true, true, 1);
  await assert.rejects(grpcAdd('accumulator_onnx', 'ended', false, false, 1), (e: any) => e.code === status.INVALID_ARGUMENT);
});

test('control inputs reach the ONNX model in their configured forms; initial state comes from the data_file', async () => {
  const big = 2n ** 64n - 2n;
  const steps = [[true, false], [false, false], [false, true]] as const;
  const seen: Array<{ out: number; start: number; end: number; ready: number; corrid: bigint }> = [];
  for (const [i, [start, end]] of steps.entries()) {
    const r = await grpcAdd('accumulator_controls', big, start, end, i + 1);
    const f32 = (n: string) => firstFloat(r, n);
    seen.push({
      out: f32('OUTPUT'),
      start: f32('START_OUT'),
      end: outputOf(r, 'END_OUT')[0]!,
      ready: new Int32Array(Uint8Array.from(outputOf(r, 'READY_OUT')).buffer)[0]!,
      corrid: new BigUint64Array(Uint8Array.from(outputOf(r, 'CORRID_OUT')).buffer)[0]!,
    });
  }
  assert.deepEqual(seen, [
    { out: 101, start: 1, end: 0, ready: 1, corrid: big },
    { out: 103, start: 0, end: 0, ready: 1, corrid: big },
    { out: 106, start: 0, end: 1, ready: 1, corrid: big },
  ]);
});

test('control inputs over HTTP: a listed state output is returned; the CORRID control rejects a string id', async () => {
  const r = await httpAdd('accumulator_controls', { id: 5, start: true }, 2);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const byName = Object.fromEntries(r.body.outputs.map((o: { name: string; data: unknown[] }) => [o.name, o.data[0]]));
  assert.deepEqual(byName, { OUTPUT: 102, OUTPUT_STATE: 102, START_OUT: 1, END_OUT: false, READY_OUT: 1, CORRID_OUT: 5 });
  const bad = await httpAdd('accumulator_controls', { id: 'abc', start: true }, 2);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /CORRID/);
  await httpAdd('accumulator_controls', { id: 5, end: true }, 0);
});

test('an idle sequence is released after max_sequence_idle_microseconds, then fails clearly', async () => {
  const model = 'accumulator_idle';
  const stats = () => s.server.modelStatistics(model).model_stats[0]!.sequence_stats!;
  const before = stats().released_idle;
  assert.equal(await httpSum(model, { id: 77, start: true }, 5), 5);
  assert.equal(await httpSum(model, { id: 77 }, 1), 6);
  assert.equal(stats().active, 1);
  // 200 ms idle limit: the server's own clock releases it; wait for that, bounded.
  await until(() => stats().released_idle > before, 3000, 'idle release');
  assert.equal(stats().active, 0);
  const r = await httpAdd(model, { id: 77 }, 1);
  assert.equal(r.status, 400);
  assert.match(r.body.error, /^inference request for sequence 77 to model '[^']+' must specify the START flag on the first request of the sequence; it was released after being idle for more than 200000 microseconds/);
  // A new START on the same id begins again from the initial state.
  assert.equal(await httpSum(model, { id: 77, start: true, end: true }, 2), 2);
});

test('statistics: sequence_stats in /v2/models/{m}/stats and over gRPC the usual figures', async () => {
  const res = await fetch(`${s.base}/v2/models/accumulator_onnx/stats`);
  assert.equal(res.status, 200);
  const body = await res.json() as { model_stats: Array<{ name: string; inference_count: number; sequence_stats?: Record<string, number> }> };
  const st = body.model_stats[0]!;
  assert.equal(st.name, 'accumulator_onnx');
  assert.ok(st.sequence_stats, 'sequence_stats present');
  assert.ok(st.sequence_stats.started! >= 4, JSON.stringify(st.sequence_stats));
  assert.ok(st.sequence_stats.ended! >= 4, JSON.stringify(st.sequence_stats));
  assert.equal(typeof st.sequence_stats.released_idle, 'number');
  assert.ok(st.inference_count >= 14);
  const g = await s.grpc.call('ModelStatistics', { name: 'accumulator_onnx' });
  assert.equal(String(g.model_stats[0].inference_count), String(st.inference_count));
});
