/**
 * `reshape` both ways on real ONNX models over HTTP, with and without batching: inputs go to the
 * model in the reshape (a -1 takes its size from the request), outputs come back in the config's
 * dims (Triton's model_configuration.md "Reshape").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createGraph } from '../../../scripts/onnx/index.js';
import { serveHttp } from '../../helpers/serve-http.js';
import { tempRepo, type TempRepo } from '../../helpers/temp-repo.js';

/**
 * Y = X + 1; a model without a batch dim also outputs SHAPE, the shape it saw (INT64), to prove
 * the reshape reached it (a batching model's outputs all need the batch dim).
 */
function addOne(name: string, dims: readonly (number | string)[], withShape: boolean): Uint8Array {
  const g = createGraph(name).input('X', 'FP32', dims).initializer('one', 'FP32', [1], [1])
    .node('Add', ['X', 'one'], ['Y']).output('Y', 'FP32', dims);
  if (withShape) g.node('Shape', ['X'], ['SHAPE']).output('SHAPE', 'INT64', [dims.length]);
  return g.encode();
}

function config(name: string, mbs: number, dims: number[], reshape: number[]): string {
  const shapeOut = mbs > 0 ? '' : `, { name: "SHAPE" data_type: TYPE_INT64 dims: [ ${reshape.length} ] }`;
  return [
    `name: "${name}"`, 'platform: "onnxruntime_onnx"', `max_batch_size: ${mbs}`,
    `input [ { name: "X" data_type: TYPE_FP32 dims: [ ${dims.join(', ')} ] reshape { shape: [ ${reshape.join(', ')} ] } } ]`,
    `output [ { name: "Y" data_type: TYPE_FP32 dims: [ ${dims.join(', ')} ] reshape { shape: [ ${reshape.join(', ')} ] } }${shapeOut} ]`, '',
  ].join('\n');
}

let repo: TempRepo;
let base: string;
let close: () => Promise<void>;

before(async () => {
  repo = tempRepo();
  const models: [string, number, (number | string)[], number[], number[]][] = [
    // name, max_batch_size, ONNX dims, config dims, config reshape
    ['square_b', 8, ['batch', 16], [4, 4], [16]],
    ['square_nb', 0, [16], [4, 4], [16]],
    ['one_b', 8, ['batch', 1], [1, 1], [1]],
    ['one_nb', 0, [1], [1, 1], [1]],
    ['var_b', 8, ['batch', 8, 'n', 1, 6], [2, 4, -1, 6], [8, -1, 1, 6]],
    ['var_nb', 0, [8, 'n', 1, 6], [2, 4, -1, 6], [8, -1, 1, 6]],
  ];
  for (const [name, mbs, onnxDims, dims, reshape] of models) {
    repo.file(`${name}/1/model.onnx`, addOne(name, onnxDims, mbs === 0));
    repo.file(`${name}/config.pbtxt`, config(name, mbs, dims, reshape));
  }
  ({ base, close } = await serveHttp(repo.dir, models.map(([name]) => name)));
});

after(async () => {
  await close?.();
  repo?.remove();
});

interface Out { name: string; shape: number[]; data: number[] }

async function infer(model: string, shape: number[], outputs = ['Y']): Promise<Map<string, Out>> {
  const n = shape.reduce((a, b) => a * b, 1);
  const res = await fetch(`${base}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      inputs: [{ name: 'X', datatype: 'FP32', shape, data: Array.from({ length: n }, (_, i) => i) }],
      outputs: outputs.map((name) => ({ name })),
    }),
  });
  const body = await res.json() as { outputs?: Out[]; error?: string };
  assert.equal(res.status, 200, `${model}: ${JSON.stringify(body)}`);
  return new Map(body.outputs!.map((o) => [o.name, o]));
}

test('an output with reshape comes back in its dims, batching or not', async () => {
  const b = (await infer('square_b', [2, 4, 4])).get('Y')!;
  assert.deepEqual(b.shape, [2, 4, 4]);
  assert.equal(b.data[31], 32);
  assert.deepEqual((await infer('square_nb', [4, 4])).get('Y')!.shape, [4, 4]);
  assert.deepEqual((await infer('one_b', [3, 1, 1])).get('Y')!.shape, [3, 1, 1]);
  const one = (await infer('one_nb', [1, 1])).get('Y')!;
  assert.deepEqual(one.shape, [1, 1]);
  assert.deepEqual(one.data, [1]);
});

test('an input reshape with -1 takes that size from the request, and the output returns to the dims', async () => {
  const b = (await infer('var_b', [1, 2, 4, 5, 6])).get('Y')!;
  assert.deepEqual(b.shape, [1, 2, 4, 5, 6]);
  assert.equal(b.data.length, 240);
  assert.equal(b.data[239], 240);
  const nb = await infer('var_nb', [2, 4, 3, 6], ['Y', 'SHAPE']);
  assert.deepEqual(nb.get('SHAPE')!.data, [8, 3, 1, 6], 'the model saw the reshape with -1 resolved');
  assert.deepEqual(nb.get('Y')!.shape, [2, 4, 3, 6]);
});
