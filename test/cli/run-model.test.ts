/**
 * `tributary run-model <repo>/<model> --input <request.json>`: one request through a script and the
 * ONNX model it calls, in one process, outputs as v2 JSON on stdout; script errors as file:line:col.
 * The model's pipeline steps may be in other repositories (--model-repository, repeatable); only
 * the model and its steps load at start, a script's callees when first called.
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
  assert.match(noModel.stderr, /no model 'absent' in the repositories searched \(.*\)/);
  const usage = await run(['run-model', join(repo.dir, 'summer')]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /Usage: tributary run-model/);
});

/** A YAML pipeline of the user's own over the built-in langid steps, in a repository of its own. */
const TEXT_STATS = `name: text_stats
max_batch_size: 4
input:
  - { name: TEXT, data_type: TYPE_STRING, dims: [1] }
output:
  - { name: LANGUAGE, data_type: TYPE_STRING, dims: [-1] }
steps:
  - model: langid_featurize
    inputs: { TEXT: TEXT }
    outputs: { FEATURES: features }
  - model: langid_mlp
    inputs: { FEATURES: features }
    outputs: { PROBABILITIES: probabilities }
  - model: langid_topk
    inputs: { PROBABILITIES: probabilities }
    outputs: { LANGUAGE: LANGUAGE }
`;

test('run-model runs a pipeline whose steps are in another repository, loading only it and its steps', async () => {
  const dir = tempRepo({
    'text_stats/config.yaml': TEXT_STATS,
    'req.json': JSON.stringify({ inputs: [{ name: 'TEXT', datatype: 'BYTES', shape: [2, 1], data: [
      'the quick brown fox jumps over the lazy dog while the children are playing in the garden',
      'le chat dort sur la table de la cuisine pendant que les enfants jouent dans le jardin',
    ] }] }),
    // Neither loads unless something loads every model of the repository: each would log its failure.
    'unrelated_broken/config.pbtxt': 'name: "unrelated_broken"\nbackend: "python"\n',
    'unrelated_onnx/config.pbtxt': 'name: "unrelated_onnx"\nbackend: "onnxruntime"\n',
    'unrelated_onnx/1/model.onnx': 'not an ONNX file',
  });
  try {
    const r = await runTributary(['run-model', join(dir.dir, 'text_stats'), '--model-repository', 'pipelines', '--model-repository', dir.dir,
      '--input', join(dir.dir, 'req.json')], 90_000);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { model_name: string; outputs: { name: string; shape: number[]; data: string[] }[] };
    assert.equal(out.model_name, 'text_stats');
    // langid_topk answers the best 3 languages per text, ISO 639-3 codes, best first.
    assert.deepEqual(out.outputs[0]!.shape, [2, 3]);
    assert.equal(out.outputs[0]!.data[0], 'eng');
    assert.equal(out.outputs[0]!.data[3], 'fra');
    assert.doesNotMatch(r.stderr, /unrelated|ocr|sentiment/, 'only the pipeline and its steps load');

    // Without the steps' repository: the load fails naming the repository that has them.
    const missing = await runTributary(['run-model', join(dir.dir, 'text_stats'), '--input', join(dir.dir, 'req.json')], 90_000);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /error: run-model: model 'text_stats' did not load: ensemble text_stats contains models that are not available or ambiguous: langid_featurize; .*unknown model 'langid_featurize'.*; repositories searched: \S+; the repository 'pipelines' has it: add --model-repository pipelines\n/);
  } finally {
    dir.remove();
  }
});
