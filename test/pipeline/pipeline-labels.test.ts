/**
 * Classification on pipeline outputs, end to end over HTTP with a real ONNX step: the pipeline's
 * own label_filename for an output, else the labels of the step that produces it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createGraph } from '../../scripts/onnx/index.js';
import { serveHttp } from '../helpers/serve-http.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

function ensemble(name: string, step: string, labelFile?: string): string {
  const label = labelFile ? ` label_filename: "${labelFile}"` : '';
  return [
    `name: "${name}"`, 'platform: "ensemble"', 'max_batch_size: 8',
    'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]',
    `output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ]${label} } ]`,
    `ensemble_scheduling { step [ { model_name: "${step}" model_version: -1 input_map { key: "X" value: "IN" } output_map { key: "Y" value: "OUT" } } ] }`, '',
  ].join('\n');
}

let repo: TempRepo;
let base: string;
let close: () => Promise<void>;

before(async () => {
  repo = tempRepo();
  repo.file('scores/1/model.onnx', createGraph('scores').input('X', 'FP32', ['batch', 4])
    .node('Identity', ['X'], ['Y']).output('Y', 'FP32', ['batch', 4]).encode());
  repo.file('scores/labels.txt', 'alpha\nbeta\ngamma\ndelta\n');
  repo.file('scores/config.pbtxt', [
    'name: "scores"', 'platform: "onnxruntime_onnx"', 'max_batch_size: 8',
    'input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]',
    'output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] label_filename: "labels.txt" } ]', '',
  ].join('\n'));
  repo.file('inherits/config.pbtxt', ensemble('inherits', 'scores'));
  repo.file('nested/config.pbtxt', ensemble('nested', 'inherits').replaceAll('key: "X"', 'key: "IN"').replaceAll('key: "Y"', 'key: "OUT"'));
  repo.file('own/config.pbtxt', ensemble('own', 'scores', 'own_labels.txt'));
  repo.file('own/own_labels.txt', 'north\neast\nsouth\nwest\n');
  ({ base, close } = await serveHttp(repo.dir, ['inherits', 'nested', 'own']));
});

after(async () => {
  await close?.();
  repo?.remove();
});

async function top2(model: string): Promise<unknown> {
  const res = await fetch(`${base}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 4], data: [0.1, 0.7, 0.2, 0.9] }],
      outputs: [{ name: 'OUT', parameters: { classification: 2 } }],
    }),
  });
  const body = await res.json() as { outputs?: Array<{ data: unknown }>; error?: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.outputs?.[0]?.data;
}

test('a pipeline output without a label file takes the labels of the step that produces it', async () => {
  assert.deepEqual(await top2('inherits'), ['0.900000:3:delta', '0.700000:1:beta']);
});

test('a nested pipeline passes on the labels its inner pipeline inherited', async () => {
  assert.deepEqual(await top2('nested'), ['0.900000:3:delta', '0.700000:1:beta']);
});

test('the pipeline\'s own label_filename wins over the step\'s', async () => {
  assert.deepEqual(await top2('own'), ['0.900000:3:west', '0.700000:1:east']);
});
