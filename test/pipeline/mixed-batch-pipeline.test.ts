/**
 * Pipelines that mix batching and non-batching ONNX steps, end to end over HTTP, as Triton runs
 * them (core ensemble_utils.cc at load, ensemble_scheduler.cc ReshapeTensorDims at run time).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createGraph } from '../../scripts/onnx/index.js';
import type { Server } from '../../src/server/index.js';
import { serveHttp } from '../helpers/serve-http.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

/** Y = X + k over FP32 tensors of `dims` (a string dim is symbolic: the batch). */
function addModel(name: string, k: number, dims: readonly (number | string)[]): Uint8Array {
  return createGraph(name).input('X', 'FP32', dims).initializer('k', 'FP32', [1], [k])
    .node('Add', ['X', 'k'], ['Y']).output('Y', 'FP32', dims).encode();
}

function onnxConfig(name: string, mbs: number, dims: number[]): string {
  return [
    `name: "${name}"`, 'platform: "onnxruntime_onnx"', `max_batch_size: ${mbs}`,
    `input [ { name: "X" data_type: TYPE_FP32 dims: [ ${dims.join(', ')} ] } ]`,
    `output [ { name: "Y" data_type: TYPE_FP32 dims: [ ${dims.join(', ')} ] } ]`, '',
  ].join('\n');
}

function ensemble(name: string, mbs: number, inDims: number[], outDims: number[], steps: string[]): string {
  const stepText = steps.map((m, i) => {
    const from = i === 0 ? 'IN' : `t${i}`;
    const to = i === steps.length - 1 ? 'OUT' : `t${i + 1}`;
    return `{ model_name: "${m}" model_version: -1 input_map { key: "X" value: "${from}" } output_map { key: "Y" value: "${to}" } }`;
  });
  return [
    `name: "${name}"`, 'platform: "ensemble"', `max_batch_size: ${mbs}`,
    `input [ { name: "IN" data_type: TYPE_FP32 dims: [ ${inDims.join(', ')} ] } ]`,
    `output [ { name: "OUT" data_type: TYPE_FP32 dims: [ ${outDims.join(', ')} ] } ]`,
    `ensemble_scheduling { step [ ${stepText.join(', ')} ] }`, '',
  ].join('\n');
}

let repo: TempRepo;
let server: Server;
let base: string;
let close: () => Promise<void>;

before(async () => {
  repo = tempRepo();
  const models: [string, number, number, (number | string)[], number[]][] = [
    // name, k, max_batch_size, ONNX dims, config dims
    ['add1_batch', 1, 8, ['batch', 4], [4]],
    ['add10_flat', 10, 0, [4], [4]],
    ['add100_explicit', 100, 0, [1, 4], [1, 4]],
    ['add1000_any', 1000, 0, ['n', 4], [-1, 4]],
    ['add1_small', 1, 2, ['batch', 4], [4]],
  ];
  for (const [name, k, mbs, onnxDims, dims] of models) {
    repo.file(`${name}/1/model.onnx`, addModel(name, k, onnxDims));
    repo.file(`${name}/config.pbtxt`, onnxConfig(name, mbs, dims));
  }
  // Batching pipelines holding non-batching steps.
  repo.file('b_flat/config.pbtxt', ensemble('b_flat', 8, [4], [4], ['add10_flat', 'add1_batch']));
  repo.file('b_explicit/config.pbtxt', ensemble('b_explicit', 8, [4], [4], ['add100_explicit', 'add1_batch']));
  repo.file('b_any/config.pbtxt', ensemble('b_any', 8, [4], [4], ['add1000_any']));
  // Non-batching pipelines feeding batching steps.
  repo.file('nb_flat/config.pbtxt', ensemble('nb_flat', 0, [4], [4], ['add1_batch', 'add10_flat']));
  repo.file('nb_out/config.pbtxt', ensemble('nb_out', 0, [4], [4], ['add1_batch']));
  repo.file('nb_full/config.pbtxt', ensemble('nb_full', 0, [-1, 4], [-1, 4], ['add1_batch']));
  // Refused: shapes agree neither way; a batching step below the pipeline's max_batch_size.
  repo.file('bad_shape/config.pbtxt', ensemble('bad_shape', 8, [2, 2], [4], ['add10_flat']));
  repo.file('bad_mbs/config.pbtxt', ensemble('bad_mbs', 8, [4], [4], ['add1_small']));
  ({ server, base, close } = await serveHttp(repo.dir, ['b_flat', 'b_explicit', 'b_any', 'nb_flat', 'nb_out', 'nb_full']));
});

after(async () => {
  await close?.();
  repo?.remove();
});

interface Out { name: string; shape: number[]; data: number[] }

async function infer(model: string, shape: number[], data: number[]): Promise<{ status: number; body: { outputs?: Out[]; error?: string } }> {
  const res = await fetch(`${base}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: 'IN', datatype: 'FP32', shape, data }] }),
  });
  return { status: res.status, body: await res.json() as { outputs?: Out[]; error?: string } };
}

test('a batching pipeline strips the batch dim of 1 for a step whose dims have none, and adds it back', async () => {
  const r = await infer('b_flat', [1, 4], [1, 2, 3, 4]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.outputs, [{ name: 'OUT', datatype: 'FP32', shape: [1, 4], data: [12, 13, 14, 15] }]);
  // A batch of 2 cannot become one tensor of a model without a batch dim: the step refuses it.
  const two = await infer('b_flat', [2, 4], [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(two.status, 400, JSON.stringify(two.body));
  assert.match(two.body.error ?? '', /add10_flat/);
});

test('a batching pipeline passes the tensor as is to a step whose dims spell the batch dim out', async () => {
  const r = await infer('b_explicit', [1, 4], [1, 2, 3, 4]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.outputs?.[0]?.shape, [1, 4]);
  assert.deepEqual(r.body.outputs?.[0]?.data, [102, 103, 104, 105]);
  const any = await infer('b_any', [3, 4], Array.from({ length: 12 }, (_, i) => i));
  assert.equal(any.status, 200, JSON.stringify(any.body));
  assert.deepEqual(any.body.outputs?.[0]?.shape, [3, 4]);
  assert.equal(any.body.outputs?.[0]?.data[11], 1011);
});

test('a non-batching pipeline adds a batch dim of 1 for a batching step and strips it after', async () => {
  const chain = await infer('nb_flat', [4], [1, 2, 3, 4]);
  assert.equal(chain.status, 200, JSON.stringify(chain.body));
  assert.deepEqual(chain.body.outputs?.[0], { name: 'OUT', datatype: 'FP32', shape: [4], data: [12, 13, 14, 15] });
  const out = await infer('nb_out', [4], [1, 2, 3, 4]);
  assert.equal(out.status, 200, JSON.stringify(out.body));
  assert.deepEqual(out.body.outputs?.[0]?.shape, [4], 'the pipeline output is in its own dims');
  // Dims that already carry the batch dim pass unchanged, any batch size.
  const full = await infer('nb_full', [2, 4], [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(full.status, 200, JSON.stringify(full.body));
  assert.deepEqual(full.body.outputs?.[0]?.shape, [2, 4]);
  assert.deepEqual(full.body.outputs?.[0]?.data, [2, 3, 4, 5, 6, 7, 8, 9]);
});

test('what Triton refuses at load stays refused, with its words', async () => {
  await assert.rejects(server.loadModel('bad_shape'), /Invalid argument: in ensemble bad_shape, ensemble tensor IN: inconsistent shape: \[-1,2,2\] is inferred from model bad_shape while \[4\] is inferred from model add10_flat; .*input 'X' expects FP32 \[4\] but tensor 'IN' from the pipeline input is FP32 \[-1,2,2\]/s);
  await assert.rejects(server.loadModel('bad_mbs'), /Invalid argument: ensemble bad_mbs allows maximum batch size 8, but it contains model add1_small which only allows maximum batch size to be 2; /);
});
