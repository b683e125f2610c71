/**
 * `tributary run-model <repo>/<model> --input <request.json>`: one request through a script and the
 * ONNX model it calls, in one process, outputs as v2 JSON on stdout; script errors as file:line:col.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { runTributary } from '../helpers/tributary-process.js';

const run = (args: readonly string[]) => runTributary(args);

const SUM_SCRIPT = `import { InferenceRequest, InferenceResponse, Tensor, type Request } from 'tributary/bls';

export default class Model {
  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    return Promise.all(requests.map(async (request) => {
      const x = request.input('X');
      const out = await new InferenceRequest({ model: 'ident', inputs: [new Tensor('INPUT0', 'FP32', [1, 16], x.data)] }).exec();
      const y = out.output('OUTPUT0').data as Float32Array;
      return new InferenceResponse({ outputs: [new Tensor('SUM', 'FP32', [1], [y.reduce((a, b) => a + b, 0)])] });
    }));
  }
}
`;

let repo: TempRepo;
before(() => {
  repo = tempRepo({
    'ident/config.pbtxt': 'name: "ident"\nbackend: "onnxruntime"\nmax_batch_size: 8\n'
      + 'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]\noutput [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]\n',
    'summer/config.pbtxt': 'name: "summer"\nbackend: "typescript"\nmax_batch_size: 0\n'
      + 'input [ { name: "X" data_type: TYPE_FP32 dims: [ 16 ] } ]\noutput [ { name: "SUM" data_type: TYPE_FP32 dims: [ 1 ] } ]\n',
    'summer/1/model.ts': SUM_SCRIPT,
    'summer/request.json': JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [16], data: Array.from({ length: 16 }, (_, i) => i) }] }),
    'broken/config.pbtxt': 'name: "broken"\nbackend: "typescript"\nmax_batch_size: 0\n'
      + 'input [ { name: "X" data_type: TYPE_FP32 dims: [ 16 ] } ]\noutput [ { name: "SUM" data_type: TYPE_FP32 dims: [ 1 ] } ]\n',
    'broken/1/model.ts': SUM_SCRIPT.replace("request.input('X')", "request.input(42)"),
  });
  repo.onnx('ident', 'identity_fp32.onnx');
});
after(() => repo.remove());

test('run-model runs a script and the ONNX model it calls once and prints the outputs as v2 JSON', async () => {
  const r = await run(['run-model', join(repo.dir, 'summer'), '--input', join(repo.dir, 'summer/request.json')]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    model_name: 'summer', model_version: '1', outputs: [{ name: 'SUM', datatype: 'FP32', shape: [1], data: [120] }],
  });
});

test('run-model names the script error by file:line:col and exits 1', async () => {
  const r = await run(['run-model', join(repo.dir, 'broken'), '--input', join(repo.dir, 'summer/request.json')]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /error: run-model: model 'broken' did not load: .*\n\s+1\/model\.ts:\d+:\d+: TS2345/);
});

test('run-model refuses a missing input file and a model the repository does not have', async () => {
  const noInput = await run(['run-model', join(repo.dir, 'summer'), '--input', join(repo.dir, 'nope.json')]);
  assert.equal(noInput.code, 2);
  assert.match(noInput.stderr, /run-model: --input .*nope\.json: no such file; give a v2 inference request body/);
  const noModel = await run(['run-model', join(repo.dir, 'absent'), '--input', join(repo.dir, 'summer/request.json')]);
  assert.equal(noModel.code, 1);
  assert.match(noModel.stderr, /repository .* has no model 'absent'/);
  const usage = await run(['run-model', join(repo.dir, 'summer')]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /Usage: tributary run-model/);
});
