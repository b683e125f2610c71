import type { InferenceRequest } from '../inference/index.js';
import type { ModelConfig, ModelInput } from '../config/index.js';
import { Errors } from '../errors.js';
import { fromConfigType, formatShape, reshapeTensor, resolveReshape, shapeMatches, type Tensor } from '../tensor/index.js';

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
      if (shape.length === 0) throw Errors.inputNoBatchDim(model, t.name);
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
      throw Errors.shapeMismatch(model, t.name, formatShape(want), formatShape(t.shape), batching);
    }
    let tensor = t;
    if (spec.reshape && !shapeMatches(spec.reshape.shape, shape)) {
      // A -1 in the reshape takes its size from the request (resolveReshape: Triton's rule).
      const to = resolveReshape(spec.dims, shape, spec.reshape.shape) ?? spec.reshape.shape;
      tensor = reshapeTensor(t, batching ? [t.shape[0]!, ...to] : to);
    }
    inputs.push(tensor);
    // A ragged input's shape may differ between requests of one batch (Triton leaves it out of the
    // equal-shape check); the backend concatenates its elements.
    key += batching && spec.allow_ragged_batch ? `${t.name}:${t.datatype}:ragged;` : `${t.name}:${t.datatype}:${shape.join('x')};`;
  }
  for (const spec of config.input) {
    if (!seen.has(spec.name) && !spec.optional) throw missingInputs(config, seen);
  }
  // Triton's sequence batcher gives each sequence one slot: one row per request.
  if (config.sequence_batching && batchSize > 1) throw Errors.sequenceBatchSize(model, batchSize);
  return { inputs, batchSize: batchSize === -1 ? 1 : batchSize, batchKey: key };
}

/** Triton's refusal: every required input left out, and the inputs the request did give. */
function missingInputs(config: ModelConfig, given: ReadonlySet<string>) {
  const required = config.input.filter((spec) => !spec.optional);
  const missing = required.filter((spec) => !given.has(spec.name)).map((spec) => spec.name);
  return Errors.inputMissing(config.name, missing, [...given], required.length, config.input.length);
}

/** Check requested output names against the config (before any work is queued). */
export function validateRequestedOutputs(config: ModelConfig, outputNames: ReadonlySet<string>, request: InferenceRequest): void {
  if (!request.outputs) return;
  const seen = new Set<string>();
  for (const o of request.outputs) {
    if (!outputNames.has(o.name)) throw Errors.outputUnknown(config.name, o.name);
    if (seen.has(o.name)) throw Errors.outputDuplicate(config.name, o.name);
    seen.add(o.name);
  }
}
