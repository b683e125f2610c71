import type { InferenceRequest } from '../inference/index.js';
import type { ModelConfig, ModelInput } from '../config/index.js';
import { Errors } from '../errors.js';
import { fromConfigType, formatShape, reshapeTensor, shapeMatches, type Tensor } from '../tensor/index.js';

/** What validation hands to the scheduler: inputs as the backend sees them, rows, batch signature. */
export interface ValidatedRequest {
  inputs: Tensor[];
  batchSize: number;
  batchKey: string;
}

/**
 * Check a request against its model's config once, at the door: names, datatypes, shapes
 * (with the implicit batch dimension when max_batch_size > 0) and requested outputs. Reshape
 * from the config is applied here as a zero-copy view, so backends always see the model's shape.
 */
export function validateRequest(config: ModelConfig, inputsByName: ReadonlyMap<string, ModelInput>, request: InferenceRequest): ValidatedRequest {
  const model = config.name;
  const batching = config.max_batch_size > 0;
  let batchSize = batching ? -1 : 1;
  const seen = new Set<string>();
  const inputs: Tensor[] = [];
  let key = '';
  for (const t of request.inputs) {
    const spec = inputsByName.get(t.name);
    if (!spec) throw Errors.inputUnknown(model, t.name, [...inputsByName.keys()]);
    if (seen.has(t.name)) throw Errors.inputDuplicate(model, t.name);
    seen.add(t.name);
    const expected = fromConfigType(spec.data_type);
    if (expected !== t.datatype) throw Errors.datatypeMismatch(model, t.name, expected ?? spec.data_type, t.datatype);
    let shape = t.shape;
    if (batching) {
      if (shape.length === 0) throw Errors.shapeMismatch(model, t.name, formatShape([-1, ...spec.dims]), formatShape(shape));
      const rows = shape[0]!;
      if (batchSize === -1) batchSize = rows;
      else if (rows !== batchSize) {
        throw Errors.inputBatchMismatch(model, t.name, rows, batchSize);
      }
      if (rows < 1 || rows > config.max_batch_size) throw Errors.batchTooLarge(model, rows, config.max_batch_size);
      shape = shape.slice(1);
    }
    if (!shapeMatches(spec.dims, shape) && !(spec.reshape && shapeMatches(spec.reshape.shape, shape))) {
      const want = batching ? [-1, ...spec.dims] : spec.dims;
      throw Errors.shapeMismatch(model, t.name, formatShape(want), formatShape(t.shape));
    }
    let tensor = t;
    if (spec.reshape && !shapeMatches(spec.reshape.shape, shape)) {
      tensor = reshapeTensor(t, batching ? [t.shape[0]!, ...spec.reshape.shape] : spec.reshape.shape);
    }
    inputs.push(tensor);
    key += `${t.name}:${t.datatype}:${shape.join('x')};`;
  }
  for (const spec of config.input) {
    if (!seen.has(spec.name) && !spec.optional) throw Errors.inputMissing(model, spec.name);
  }
  return { inputs, batchSize: batchSize === -1 ? 1 : batchSize, batchKey: key };
}

/** Check requested output names against the config (before any work is queued). */
export function validateRequestedOutputs(config: ModelConfig, outputNames: ReadonlySet<string>, request: InferenceRequest): void {
  if (!request.outputs) return;
  for (const o of request.outputs) if (!outputNames.has(o.name)) throw Errors.outputUnknown(config.name, o.name);
}
