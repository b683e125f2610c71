/**
 * Poll mode and the edit loop: when only a script changes, the rescan reloads the script and
 * leaves the ONNX model it calls loaded (one "successfully loaded" line for it, not two).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setLogSink } from '../../src/logger.js';
import { inferOnce } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { withServer } from '../helpers/with-server.js';

const script = (factor: number): string => `import { InferenceRequest, InferenceResponse, Tensor, type Request } from 'tributary/bls';

export default class Model {
  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    return Promise.all(requests.map(async (request) => {
      const out = await new InferenceRequest({ model: 'ident', inputs: [new Tensor('INPUT0', 'FP32', [1, 16], request.input('X').data)] }).exec();
      const y = out.output('OUTPUT0').data as Float32Array;
      return new InferenceResponse({ outputs: [new Tensor('SUM', 'FP32', [1], [${factor} * y.reduce((a, b) => a + b, 0)])] });
    }));
  }
}
`;

test('poll: a changed script is reloaded, the unchanged ONNX model it calls is not', async () => {
  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  const repo = tempRepo({
    'ident/config.pbtxt': 'name: "ident"\nbackend: "onnxruntime"\nmax_batch_size: 8\n'
      + 'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]\noutput [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]\n',
    'summer/config.pbtxt': 'name: "summer"\nbackend: "typescript"\nmax_batch_size: 0\n'
      + 'input [ { name: "X" data_type: TYPE_FP32 dims: [ 16 ] } ]\noutput [ { name: "SUM" data_type: TYPE_FP32 dims: [ 1 ] } ]\n',
    'summer/1/model.ts': script(1),
  });
  repo.onnx('ident', 'identity_fp32.onnx');
  const loads = (model: string) => lines.filter((l) => l.includes(`successfully loaded '${model}'`)).length;
  const sum = async (server: Parameters<typeof inferOnce>[0]) => {
    const x = createTensor('X', 'FP32', [16], Float32Array.from({ length: 16 }, (_, i) => i));
    return (await inferOnce(server, { model: 'summer', inputs: [x] })).outputs[0]!.data[0];
  };
  try {
    await withServer({ modelRepository: repo.dir, modelControlMode: 'poll', repositoryPollSecs: 0 }, async (server) => {
      assert.equal(await sum(server), 120);
      assert.deepEqual([loads('ident'), loads('summer')], [1, 1]);
      repo.file('summer/1/model.ts', script(2));
      await server.poll();
      assert.equal(await sum(server), 240);
      assert.deepEqual([loads('ident'), loads('summer')], [1, 2], lines.join('\n'));
    });
  } finally {
    setLogSink((line) => process.stderr.write(line + '\n'));
    repo.remove();
  }
});
