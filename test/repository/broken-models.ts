/**
 * A repository of models that each fail one load-time check, for comparing what `validate`
 * reports with what a load answers.
 */
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { ADD_CONST_CONFIG, addConstModel } from './add-const-model.js';

const TS_CONFIG = (name: string, extra = '') => `name: "${name}"
backend: "typescript"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
${extra}`;

const TS_OK = `import { InferenceResponse, Tensor } from 'tributary/bls';
import type { Request } from 'tributary/bls';

export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => new InferenceResponse({ outputs: [new Tensor('Y', 'FP32', [4], r.input('X').data as Float32Array)] }));
  }
}
`;

const PIPE = (name: string, step: string, from = 'x', to = 'y') => `name: "${name}"
platform: "ensemble"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling {
  step [
    {
      model_name: "${step}"
      model_version: -1
      input_map { key: "${from}" value: "IN" }
      output_map { key: "${to}" value: "OUT" }
    }
  ]
}
`;

/** Broken models (name -> what is wrong), beside one good model `add_one` the pipelines use. */
export const BROKEN = {
  ts_syntax: 'a script with a syntax error',
  ts_types: 'a script with a type error (type_check defaults to error)',
  ts_import: 'a script importing a file outside the model directory',
  bad_field: 'a config field that does not exist',
  onnx_dims: 'config dims that disagree with the ONNX model',
  pipe_unknown: 'a pipeline step naming a model that does not exist',
  pipe_yaml: 'a YAML pipeline with a misspelt key',
  cycle_a: 'two pipelines that use each other',
} as const;

export function brokenRepo(): TempRepo {
  const r = tempRepo({
    'add_one/config.pbtxt': ADD_CONST_CONFIG('add_one'),
    'ts_syntax/config.pbtxt': TS_CONFIG('ts_syntax'),
    'ts_syntax/1/model.ts': TS_OK.replace('return requests.map(', 'return requests.map((('),
    'ts_types/config.pbtxt': TS_CONFIG('ts_types'),
    'ts_types/1/model.ts': TS_OK.replace("[4], r.input('X').data as Float32Array", "[4], r.input('X').dataa as Float32Array"),
    'ts_import/config.pbtxt': TS_CONFIG('ts_import'),
    'ts_import/1/model.ts': `import { secret } from '../../outside.js';\n${TS_OK.replace("[4], r.input('X')", '[secret], r.input(\'X\')')}`,
    'outside.js': 'export const secret = 4;\n',
    'bad_field/config.pbtxt': ADD_CONST_CONFIG('bad_field', 'max_batch_sise: 4'),
    'onnx_dims/config.pbtxt': ADD_CONST_CONFIG('onnx_dims').replace('name: "x" data_type: TYPE_FP32 dims: [ 4 ]', 'name: "x" data_type: TYPE_FP32 dims: [ 5 ]'),
    'pipe_unknown/config.pbtxt': PIPE('pipe_unknown', 'add_onee'),
    'pipe_yaml/config.yaml': [
      'name: pipe_yaml', 'max_batch_size: 8',
      'input:', '  - { name: IN, data_type: TYPE_FP32, dims: [4] }',
      'output:', '  - { name: OUT, data_type: TYPE_FP32, dims: [4] }',
      'steps:', '  - model: add_one', '    inputs: { x: IN }', '    outptus: { y: OUT }', '',
    ].join('\n'),
    'cycle_a/config.pbtxt': PIPE('cycle_a', 'cycle_b', 'IN', 'OUT'),
    'cycle_b/config.pbtxt': PIPE('cycle_b', 'cycle_a', 'IN', 'OUT'),
  });
  for (const m of ['add_one', 'bad_field', 'onnx_dims']) r.file(`${m}/1/model.onnx`, addConstModel(1));
  return r;
}
