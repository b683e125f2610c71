/**
 * Triton's ragged batching end to end: requests whose allow_ragged_batch input differs in shape
 * share one execution of a real ONNX model that reads the batch input
 * BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO, and its BATCH_SCATTER_WITH_INPUT_SHAPE output comes
 * back to each request in that request's input shape.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer, inferOnce, type Server } from '../../src/server/index.js';
import { createTensor, type Tensor } from '../../src/tensor/index.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

// preferred_batch_size 2 runs the pair as soon as both are queued; the long delay would hold a
// lone request, so a pair split by shape would still finish (and show 2 executions).
const RAGGED = `
name: "ragged"
backend: "onnxruntime"
max_batch_size: 8
input [ { name: "INPUT" data_type: TYPE_FP32 dims: [ -1 ] allow_ragged_batch: true } ]
batch_input [ { kind: BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO target_name: "OFFSETS" data_type: TYPE_INT32 source_input: "INPUT" } ]
output [ { name: "SUM" data_type: TYPE_FP32 dims: [ 1 ] }, { name: "DOUBLED" data_type: TYPE_FP32 dims: [ -1 ] } ]
batch_output [ { target_name: "DOUBLED" kind: BATCH_SCATTER_WITH_INPUT_SHAPE source_input: "INPUT" } ]
dynamic_batching { preferred_batch_size: [ 2 ] max_queue_delay_microseconds: 100000 }
`;

let repo: TempRepo;
let server: Server;

before(async () => {
  repo = tempRepo({ 'ragged/config.pbtxt': RAGGED });
  repo.onnx('ragged', 'ragged_sum.onnx');
  server = await createServer({ modelRepository: repo.dir });
});

after(async () => {
  await server.close();
  repo.remove();
});

const ramp = (n: number, from: number) => createTensor('INPUT', 'FP32', [1, n], Array.from({ length: n }, (_, i) => from + i));
const byName = (ts: readonly Tensor[], name: string) => ts.find((t) => t.name === name)!;

test('requests of shapes [1,16] and [1,8] form ONE batch and each gets its own sum and scattered output', async () => {
  const [a, b] = await Promise.all([
    inferOnce(server, { model: 'ragged', inputs: [ramp(16, 0)] }),
    inferOnce(server, { model: 'ragged', inputs: [ramp(8, 100)] }),
  ]);
  assert.deepEqual([...(byName(a!.outputs, 'SUM').data as Float32Array)], [120]);
  assert.deepEqual([...(byName(b!.outputs, 'SUM').data as Float32Array)], [8 * 100 + 28]);
  assert.deepEqual(byName(a!.outputs, 'SUM').shape, [1, 1]);
  assert.deepEqual(byName(a!.outputs, 'DOUBLED').shape, [1, 16]);
  assert.deepEqual(byName(b!.outputs, 'DOUBLED').shape, [1, 8]);
  assert.deepEqual([...(byName(b!.outputs, 'DOUBLED').data as Float32Array)], Array.from({ length: 8 }, (_, i) => 2 * (100 + i)));

  let s = server.modelStatistics('ragged').model_stats[0]!;
  for (let i = 0; i < 200 && s.inference_count < 2; i++) {
    await new Promise((r) => setTimeout(r, 5));
    s = server.modelStatistics('ragged').model_stats[0]!;
  }
  assert.equal(s.inference_count, 2);
  assert.equal(s.execution_count, 1, 'the two ragged requests ran as one execution');
  assert.deepEqual(s.batch_stats.map((x) => [x.batch_size, x.compute_infer.count]), [[2, 1]]);
});

test('the model metadata shows the ragged input and both outputs with the batch dimension', () => {
  const md = server.modelMetadata('ragged');
  assert.deepEqual(md.inputs, [{ name: 'INPUT', datatype: 'FP32', shape: [-1, -1] }]);
  assert.deepEqual(md.outputs.map((o) => o.name), ['SUM', 'DOUBLED']);
});
