/**
 * The repository: `greet`, an experiment over TypeScript models greet_a (Y = X + 1) and
 * greet_b (Y = X + 2) with the shadow greet_shadow (Y = X + 100); a pipeline and a script that
 * call `greet` like any model; and a decoupled experiment over two streaming models.
 */

/** A TypeScript model answering Y = X + `n` (FP32). */
export const addScript = (n: number) => `
import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Add {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const x = r.input('X');
      return new InferenceResponse({ outputs: [new Tensor('Y', 'FP32', x.shape, (x.data as Float32Array).map((v) => v + ${n}))] });
    });
  }
}
`;

export const addConfig = (name: string, type = 'TYPE_FP32') => `name: ${name}
backend: typescript
max_batch_size: 8
input:
  - { name: X, data_type: ${type}, dims: [1] }
output:
  - { name: Y, data_type: ${type}, dims: [1] }
`;

const GREET = `name: greet
experiment:
  variants:
    - { model: greet_a, weight: 50 }
    - { model: greet_b, weight: 50 }
  sticky: { header: x-user }
  mirror: { model: greet_shadow, percent: 100 }
`;

const PIPE = `name: greet_pipe
max_batch_size: 8
input:
  - { name: X, data_type: TYPE_FP32, dims: [1] }
output:
  - { name: Y, data_type: TYPE_FP32, dims: [1] }
steps:
  - model: greet
    inputs: { X: X }
    outputs: { Y: Y }
`;

/** A script that calls `greet` and answers its Y, naming the variant that served the call. */
const CALLER = `
import { InferenceRequest, InferenceResponse, type Request } from 'tributary/bls';
export default class Caller {
  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    return Promise.all(requests.map(async (r) => {
      const res = await new InferenceRequest({ model: 'greet', inputs: [r.input('X')], outputs: ['Y'] }).exec();
      return new InferenceResponse({ outputs: [res.output('Y')], parameters: { via: String(res.parameters.experiment_variant) } });
    }));
  }
}
`;

/** Decoupled: N responses OUT = base + i, then the empty final. */
const streamScript = (base: number) => `
import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Streamer {
  execute(requests: Request[]): void {
    for (const r of requests) {
      const sender = r.responseSender();
      const n = (r.input('N').data as Int32Array)[0]!;
      for (let i = 0; i < n; i++) sender.send(new InferenceResponse({ outputs: [new Tensor('OUT', 'INT32', [1], [${base} + i])] }));
      sender.send(undefined, { final: true });
    }
  }
}
`;

const streamConfig = (name: string) => `name: ${name}
backend: typescript
max_batch_size: 0
input:
  - { name: N, data_type: TYPE_INT32, dims: [1] }
output:
  - { name: OUT, data_type: TYPE_INT32, dims: [1] }
model_transaction_policy: { decoupled: true }
`;

export function experimentRepoFiles(greet = GREET): Record<string, string> {
  return {
    'greet/config.yaml': greet,
    'greet_a/config.yaml': addConfig('greet_a'), 'greet_a/1/model.ts': addScript(1),
    'greet_b/config.yaml': addConfig('greet_b'), 'greet_b/1/model.ts': addScript(2),
    'greet_shadow/config.yaml': addConfig('greet_shadow'), 'greet_shadow/1/model.ts': addScript(100),
    'greet_pipe/config.yaml': PIPE,
    'greet_caller/config.yaml': addConfig('greet_caller'), 'greet_caller/1/model.ts': CALLER,
    // JSON configs take an experiment too.
    'stream/config.json': JSON.stringify({ name: 'stream', experiment: { variants: [{ model: 'stream_a', weight: 1 }, { model: 'stream_b', weight: 1 }] } }),
    'stream_a/config.yaml': streamConfig('stream_a'), 'stream_a/1/model.ts': streamScript(0),
    'stream_b/config.yaml': streamConfig('stream_b'), 'stream_b/1/model.ts': streamScript(10),
  };
}
