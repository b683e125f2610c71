import { Errors } from '../errors.js';
import type { Parameters } from '../inference/index.js';
import type { Tensor } from '../tensor/index.js';
import type { InferResult } from './types.js';

/** A response as the SDK hands it out; `output(name)` looks a tensor up by name. */
export function inferResult(modelName: string, modelVersion: string, id: string, outputs: Tensor[], parameters: Parameters): InferResult {
  return {
    modelName, modelVersion, id, outputs, parameters,
    output(name: string): Tensor {
      for (const t of outputs) if (t.name === name) return t;
      throw Errors.clientOutputMissing(modelName, name, outputs.map((t) => t.name));
    },
  };
}
