import { InferenceResponse, Tensor, type Request } from 'tributary/bls';

/** Y = X + 1, for each row of the batch. */
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const x = r.input('X');
      return new InferenceResponse({ outputs: [new Tensor('Y', 'FP32', x.shape, (x.data as Float32Array).map((v) => v + 1))] });
    });
  }
}
