/**
 * Statistics count every execution in its batch size's entry, whatever the backend (Triton's
 * statistics extension: batch_stats per size, execution_count, inference_count), over real
 * servers: the identity backend and pipelines time nothing themselves, ONNX and TypeScript do.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer, inferOnce, type Server } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import type { ModelStatistics } from '../../src/model/index.js';
import { ECHO_CONFIG, int32s, simpleConfig } from '../helpers/model-configs.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

const PIPE = `
name: "pipe"
platform: "ensemble"
max_batch_size: 8
input [ { name: "A" data_type: TYPE_INT32 dims: [ -1 ] } ]
output [ { name: "B" data_type: TYPE_INT32 dims: [ -1 ] } ]
ensemble_scheduling { step [ { model_name: "echo" model_version: -1 input_map { key: "IN" value: "A" } output_map { key: "OUT" value: "B" } } ] }
`;

const SCRIPT_CONFIG = `
name: "script"
backend: "typescript"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ -1 ] } ]
`;

const SCRIPT = `
import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => new InferenceResponse({ outputs: [new Tensor('Y', 'FP32', r.input('X').shape, r.input('X').data)] }));
  }
}
`;

let repo: TempRepo;
let server: Server;

before(async () => {
  repo = tempRepo({
    'echo/config.pbtxt': ECHO_CONFIG,
    'echo/1/model.identity': '',
    'pipe/config.pbtxt': PIPE,
    'simple/config.pbtxt': simpleConfig('dynamic_batching { max_queue_delay_microseconds: 0 }'),
    'script/config.pbtxt': SCRIPT_CONFIG,
    'script/1/model.ts': SCRIPT,
  });
  repo.onnx('simple', 'simple.onnx');
  server = await createServer({ modelRepository: repo.dir });
});

after(async () => {
  await server.close();
  repo.remove();
});

/** A request's statistics are recorded as its batch ends, just after its response: wait for them. */
async function statsAfter(model: string, inferences: number): Promise<ModelStatistics> {
  let s = server.modelStatistics(model).model_stats[0]!;
  for (let i = 0; i < 200 && s.inference_count < inferences; i++) {
    await new Promise((r) => setTimeout(r, 5));
    s = server.modelStatistics(model).model_stats[0]!;
  }
  return s;
}

/** batch size -> executions, checking that every compute figure of an entry counts each one. */
function executionsBySize(s: ModelStatistics): Record<number, number> {
  const out: Record<number, number> = {};
  for (const b of s.batch_stats) {
    assert.equal(b.compute_input.count, b.compute_infer.count, `batch ${b.batch_size}: compute_input and compute_infer count alike`);
    assert.equal(b.compute_output.count, b.compute_infer.count, `batch ${b.batch_size}: compute_output and compute_infer count alike`);
    out[b.batch_size] = b.compute_infer.count;
  }
  return out;
}

const ints = (name: string, rows: number, cols: number) => createTensor(name, 'INT32', [rows, cols], int32s(rows * cols, (i) => i));

test('identity backend: each execution counts under its batch size although the backend reports no timings', async () => {
  for (const rows of [1, 2, 2]) await inferOnce(server, { model: 'echo', inputs: [ints('IN', rows, 3)] });
  const s = await statsAfter('echo', 5);
  assert.equal(s.execution_count, 3);
  assert.equal(s.inference_count, 5);
  assert.deepEqual(executionsBySize(s), { 1: 1, 2: 2 });
  assert.equal(s.inference_stats.compute_infer.count, 3);
});

test('onnxruntime: three requests queued together are one execution of batch size 4', async () => {
  const one = (rows: number) => inferOnce(server, { model: 'simple', inputs: [ints('INPUT0', rows, 16), ints('INPUT1', rows, 16)] });
  await Promise.all([one(1), one(2), one(1)]);
  const s = await statsAfter('simple', 4);
  assert.equal(s.execution_count, 1);
  assert.equal(s.inference_count, 4);
  assert.deepEqual(executionsBySize(s), { 4: 1 });
  assert.equal(s.inference_stats.success.count, 3);
  assert.equal(s.inference_stats.compute_infer.count, 3);
});

test('typescript backend (max_batch_size 0): every request is an execution of batch size 1', async () => {
  for (let i = 0; i < 2; i++) await inferOnce(server, { model: 'script', inputs: [createTensor('X', 'FP32', [2], [1, 2])] });
  const s = await statsAfter('script', 2);
  assert.equal(s.execution_count, 2);
  assert.equal(s.inference_count, 2);
  assert.deepEqual(executionsBySize(s), { 1: 2 });
});

test('a pipeline counts each request as one execution of its batch size', async () => {
  const before = (await statsAfter('echo', 0)).execution_count;
  await inferOnce(server, { model: 'pipe', inputs: [ints('A', 1, 4)] });
  await inferOnce(server, { model: 'pipe', inputs: [ints('A', 3, 4)] });
  const s = await statsAfter('pipe', 4);
  assert.equal(s.execution_count, 2);
  assert.equal(s.inference_count, 4);
  assert.deepEqual(executionsBySize(s), { 1: 1, 3: 1 });
  assert.equal(s.inference_stats.compute_infer.count, 2);
  // the step's own executions are the echo model's
  assert.equal((await statsAfter('echo', 9)).execution_count, before + 2);
});
