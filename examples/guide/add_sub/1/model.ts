import { InferenceResponse, Tensor, logger, type InitializeArgs, type Request } from 'tributary/bls';

/** OUTPUT0 = INPUT0 + INPUT1 and OUTPUT1 = INPUT0 - INPUT1, element by element. */
export default class AddSub {
  initialize(args: InitializeArgs): void {
    const outputs = args.config.output.map((o) => `${o.name} ${o.data_type}`);
    logger.info(`add_sub instance ${args.instanceIndex}: outputs ${outputs.join(', ')}`);
  }

  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((request) => {
      const in0 = request.input('INPUT0');
      const a = in0.data as Float32Array;
      const b = request.input('INPUT1').data as Float32Array;
      if (a.length !== b.length) {
        return new InferenceResponse({ error: `INPUT0 has ${a.length} elements but INPUT1 has ${b.length}` });
      }
      return new InferenceResponse({
        outputs: [
          new Tensor('OUTPUT0', 'FP32', in0.shape, a.map((x, i) => x + b[i]!)),
          new Tensor('OUTPUT1', 'FP32', in0.shape, a.map((x, i) => x - b[i]!)),
        ],
      });
    });
  }

  finalize(): void {
    logger.info('add_sub: cleaning up');
  }
}
