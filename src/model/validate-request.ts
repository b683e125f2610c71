import { namesSeen, repeatsName, type InferenceRequest } from '../inference/index.js';
import type { ModelConfig, ModelInput } from '../config/index.js';
import { Errors } from '../errors.js';
import { fromConfigType, formatShape, reshapeTensor, resolveReshape, type Tensor } from '../tensor/index.js';

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
  const given = request.inputs;
  const seen = namesSeen(given.length);
  let batchSize = batching ? -1 : 1;
  let required = 0;
  const inputs: Tensor[] = [];
  let key = '';
  for (let i = 0; i < given.length; i++) {
    const t = given[i]!;
    const spec = inputsByName.get(t.name);
    if (!spec) throw Errors.inputUnknown(model, t.name, [...inputsByName.keys()]);
    if (repeatsName(given, i, seen)) throw Errors.inputDuplicate(model, t.name);
    if (!spec.optional) required++;
    const expected = fromConfigType(spec.data_type);
    if (expected !== t.datatype) throw Errors.datatypeMismatch(model, t.name, expected ?? spec.data_type, t.datatype);
    // The shape past the batch dimension starts at `from` (no copy of it unless reshaped).
    let from = 0;
    if (batching) {
      if (t.shape.length === 0) throw Errors.inputNoBatchDim(model, t.name);
      const rows = t.shape[0]!;
      if (batchSize === -1) batchSize = rows;
      else if (rows !== batchSize) {
        throw Errors.inputBatchMismatch(model, t.name, rows, batchSize);
      }
      if (rows < 1 || rows > config.max_batch_size) throw Errors.batchTooLarge(model, rows, config.max_batch_size);
      from = 1;
    }
    const fitsDims = shapeMatchesFrom(spec.dims, t.shape, from);
    const fitsReshape = spec.reshape !== undefined && shapeMatchesFrom(spec.reshape.shape, t.shape, from);
    if (!fitsDims && !fitsReshape) {
      const want = batching ? [-1, ...spec.dims] : spec.dims;
      throw Errors.shapeMismatch(model, t.name, formatShape(want), formatShape(t.shape), batching);
    }
    let tensor = t;
    if (spec.reshape && !fitsReshape) {
      // A -1 in the reshape takes its size from the request (resolveReshape: Triton's rule).
      const shape = t.shape.slice(from);
      const to = resolveReshape(spec.dims, shape, spec.reshape.shape) ?? spec.reshape.shape;
      tensor = reshapeTensor(t, batching ? [t.shape[0]!, ...to] : to);
    }
    inputs.push(tensor);
    // A ragged input's shape may differ between requests of one batch (Triton leaves it out of the
    // equal-shape check); the backend concatenates its elements.
    key += batching && spec.allow_ragged_batch ? `${t.name}:${t.datatype}:ragged;` : `${t.name}:${t.datatype}:${dimsKey(t.shape, from)};`;
  }
  // Every given input is known and distinct, so all required ones are there when as many are.
  if (required < requiredCount(config)) throw missingInputs(config, new Set(given.map((t) => t.name)));
  // Triton's sequence batcher gives each sequence one slot: one row per request.
  if (config.sequence_batching && batchSize > 1) throw Errors.sequenceBatchSize(model, batchSize);
  return { inputs, batchSize: batchSize === -1 ? 1 : batchSize, batchKey: key };
}

/** `dims` (a config's, -1 for any size) against `shape` from index `from` on. */
function shapeMatchesFrom(dims: readonly number[], shape: readonly number[], from: number): boolean {
  if (dims.length !== shape.length - from) return false;
  for (let i = 0; i < dims.length; i++) if (dims[i] !== -1 && dims[i] !== shape[i + from]) return false;
  return true;
}

/** `shape` from index `from` on, as the batch key writes it (`2x3`). */
function dimsKey(shape: readonly number[], from: number): string {
  let s = '';
  for (let i = from; i < shape.length; i++) s += i === from ? `${shape[i]}` : `x${shape[i]}`;
  return s;
}

function requiredCount(config: ModelConfig): number {
  let n = 0;
  for (const spec of config.input) if (!spec.optional) n++;
  return n;
}

/** Triton's refusal: every required input left out, and the inputs the request did give. */
function missingInputs(config: ModelConfig, given: ReadonlySet<string>) {
  const required = config.input.filter((spec) => !spec.optional);
  const missing = required.filter((spec) => !given.has(spec.name)).map((spec) => spec.name);
  return Errors.inputMissing(config.name, missing, [...given], required.length, config.input.length);
}

/** Check requested output names against the config (before any work is queued). */
export function validateRequestedOutputs(config: ModelConfig, outputNames: ReadonlySet<string>, request: InferenceRequest): void {
  const outputs = request.outputs;
  if (!outputs) return;
  const seen = namesSeen(outputs.length);
  for (let i = 0; i < outputs.length; i++) {
    const name = outputs[i]!.name;
    if (!outputNames.has(name)) throw Errors.outputUnknown(config.name, name);
    if (repeatsName(outputs, i, seen)) throw Errors.outputDuplicate(config.name, name);
  }
}
