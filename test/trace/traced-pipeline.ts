/**
 * The repository both trace tests serve: `pipe` runs the ONNX model add1, then a TypeScript step
 * `script` that logs a line and calls the ONNX model add10 through BLS; X and Y are FP32 [4].
 */
import { createGraph } from '../../scripts/onnx/index.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

const SCRIPT = `import { InferenceRequest, InferenceResponse, Tensor, logger, type Request } from 'tributary/bls';

export default class Model {
  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    const out: InferenceResponse[] = [];
    for (const r of requests) {
      const x = r.input('X').data as Float32Array;
      logger.info('calling add10');
      const res = await new InferenceRequest({ model: 'add10', inputs: [new Tensor('X', 'FP32', [4], x)], outputs: ['Y'] }).exec();
      out.push(new InferenceResponse({ outputs: [new Tensor('Y', 'FP32', [4], res.output('Y').data as Float32Array)] }));
    }
    return out;
  }
}
`;

const io = 'input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n';

export function tracedPipelineRepo(): TempRepo {
  const repo = tempRepo();
  for (const [name, k] of [['add1', 1], ['add10', 10]] as const) {
    repo.file(`${name}/1/model.onnx`, createGraph(name).input('X', 'FP32', [4]).initializer('k', 'FP32', [1], [k]).node('Add', ['X', 'k'], ['Y']).output('Y', 'FP32', [4]).encode());
    repo.file(`${name}/config.pbtxt`, `name: "${name}"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 0\n${io}`);
  }
  repo.file('script/config.pbtxt', `name: "script"\nbackend: "typescript"\nmax_batch_size: 0\n${io}`);
  repo.file('script/1/model.ts', SCRIPT);
  const step = (m: string, from: string, to: string) => `{ model_name: "${m}" model_version: -1 input_map { key: "X" value: "${from}" } output_map { key: "Y" value: "${to}" } }`;
  repo.file('pipe/config.pbtxt', `name: "pipe"\nplatform: "ensemble"\nmax_batch_size: 0\n${io}ensemble_scheduling { step [ ${step('add1', 'X', 'mid')}, ${step('script', 'mid', 'Y')} ] }\n`);
  return repo;
}
