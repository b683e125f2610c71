/**
 * Sequences through pipelines and BLS, over the real front ends: an ensemble passes a request's
 * correlation ID and START/END flags to its stateful step; a BLS script's InferenceRequest carries
 * correlationId / sequenceStart / sequenceEnd to a stateful model.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import {
  grpcSequenceParameters, httpInfer, rawFloatBytes, rawFloats, sequenceParameters, startSequenceServer,
  type SequenceParams, type SequenceServer,
} from './sequence-server.js';

let s: SequenceServer;
before(async () => {
  s = await startSequenceServer(['running_total', 'bls_accumulate']);
});
after(async () => s?.close());

async function pipelineStep(seq: SequenceParams, value: number): Promise<{ total: number; doubled: number }> {
  const r = await httpInfer(s.base, 'running_total', {
    parameters: sequenceParameters(seq),
    inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1], data: [value] }],
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const get = (n: string) => r.body.outputs.find((o: { name: string }) => o.name === n).data[0];
  return { total: get('TOTAL'), doubled: get('DOUBLED') };
}

test('ensemble over HTTP: the stateful step keeps a running total per sequence', async () => {
  const a: number[] = [];
  const b: number[] = [];
  for (const [i, v] of [2, 3, 5, 7].entries()) {
    const end = i === 3;
    const [ra, rb] = await Promise.all([pipelineStep({ id: 'left', start: i === 0, end }, v), pipelineStep({ id: 31, start: i === 0, end }, -v)]);
    assert.equal(ra.doubled, 2 * ra.total, 'the stateless step sees the total');
    a.push(ra.total);
    b.push(rb.total);
  }
  assert.deepEqual(a, [2, 5, 10, 17]);
  assert.deepEqual(b, [-2, -5, -10, -17]);
});

test('ensemble over gRPC: a uint64 id past 2^53 reaches the step; START resets it', async () => {
  const id = 2n ** 62n + 3n;
  const step = async (start: boolean, end: boolean, v: number) => {
    const r = await s.grpc.call('ModelInfer', {
      model_name: 'running_total', parameters: grpcSequenceParameters(id, start, end),
      inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1] }], raw_input_contents: [rawFloatBytes(Float32Array.of(v))],
    });
    const i = r.outputs.findIndex((o: { name: string }) => o.name === 'TOTAL');
    return rawFloats(r.raw_output_contents[i])[0];
  };
  assert.equal(await step(true, false, 4), 4);
  assert.equal(await step(false, false, 4), 8);
  assert.equal(await step(true, false, 1), 1, 'START resets the total');
  assert.equal(await step(false, true, 1), 2);
});

test('ensemble: a step request without START fails naming the stateful model', async () => {
  const r = await httpInfer(s.base, 'running_total', {
    parameters: sequenceParameters({ id: 'ghost' }),
    inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1], data: [1] }],
  });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.match(r.body.error, /^in ensemble 'running_total', inference request for sequence ghost to model 'accumulator_onnx' must specify the START flag/);
  await assert.rejects(s.grpc.call('ModelInfer', {
    model_name: 'running_total', parameters: grpcSequenceParameters(5n, false, false),
    inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1] }], raw_input_contents: [rawFloatBytes(Float32Array.of(1))],
  }), (e: any) => e.code === status.INVALID_ARGUMENT && /^in ensemble 'running_total', inference request for sequence 5 to model 'accumulator_onnx' must specify the START flag on the first request of the sequence/.test(e.details));
});

async function blsSums(values: number[], corrid: string): Promise<{ status: number; body: any }> {
  return httpInfer(s.base, 'bls_accumulate', {
    inputs: [
      { name: 'VALUES', datatype: 'FP32', shape: [values.length], data: values },
      { name: 'CORRID', datatype: 'BYTES', shape: [1], data: [corrid] },
    ],
  });
}

test('BLS: correlationId with sequenceStart/sequenceEnd drives a stateful model (uint64 and string ids)', async () => {
  for (const corrid of ['18446744073709551615', 'bls-stream']) {
    const r = await blsSums([1, 2, 3, 4], corrid);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.outputs[0].data, [1, 3, 6, 10], `corrid ${corrid}`);
  }
  // The sequences were ended by sequenceEnd: the same id starts over.
  const again = await blsSums([5, 5], 'bls-stream');
  assert.deepEqual(again.body.outputs[0].data, [5, 10]);
});

test('BLS: two concurrent script calls on different ids do not mix their state', async () => {
  const [a, b] = await Promise.all([blsSums([1, 1, 1, 1, 1], '7'), blsSums([100, 100, 100], '8')]);
  assert.deepEqual(a.body.outputs[0].data, [1, 2, 3, 4, 5]);
  assert.deepEqual(b.body.outputs[0].data, [100, 200, 300]);
});
