/**
 * One model run of an OpenAI request as an InferenceRequest: the text in the model's text input,
 * and each generation field as the input of its name when the model has one, else as a request
 * parameter. Only the output the endpoint reads is asked for.
 */
import type { InferenceRequest, Parameters } from '../../inference/index.js';
import { createTensor, elementCount, type DataType, type Tensor } from '../../tensor/index.js';
import type { TensorMetadata } from '../../server/index.js';
import { fieldError } from './openai-error.js';
import type { OpenAiTarget } from './openai-target.js';
import type { FieldValue, Sampling } from './read-sampling.js';

/** A concrete shape for `count` values: fixed dims kept, -1 dims 1, the last -1 dim takes the rest. */
function shapeFor(meta: TensorMetadata | undefined, count: number): number[] | undefined {
  if (!meta) return count === 1 ? [1] : [count];
  const shape = meta.shape.map((d) => (d === -1 ? 1 : d));
  const last = meta.shape.lastIndexOf(-1);
  if (count !== 1 && last >= 0) shape[last] = count / elementCount(shape.filter((_, i) => i !== last));
  return Number.isInteger(shape[last] ?? 0) && elementCount(shape) === count ? shape : undefined;
}

function fieldTensor(field: string, meta: TensorMetadata, value: FieldValue): Tensor {
  const values: unknown[] = Array.isArray(value) ? [...value] : [value];
  const shape = shapeFor(meta, values.length);
  if (!shape) throw fieldError(field, `has ${values.length} value(s), but the model's input '${meta.name}' has shape [${meta.shape.join(', ')}]`);
  const datatype: DataType = meta.datatype;
  if (datatype === 'BYTES') return createTensor(meta.name, datatype, shape, values.map(String));
  if (values.some((v) => typeof v === 'string')) throw fieldError(field, `is text, but the model's input '${meta.name}' is ${datatype}`);
  return createTensor(meta.name, datatype, shape, values.map((v) => (typeof v === 'boolean' ? Number(v) : v)) as number[]);
}

/**
 * `seedOffset`: the choice's index, added to `seed` so that the n choices of one request differ
 * (and each is still reproducible).
 */
export function buildRequest(target: OpenAiTarget, text: string, output: string, sampling?: Sampling, seedOffset = 0): InferenceRequest {
  const meta = target.inputs.get(target.decl.textInput);
  const inputs: Tensor[] = [createTensor(target.decl.textInput, 'BYTES', shapeFor(meta, 1) ?? [1], [text])];
  let parameters: Parameters | undefined;
  for (const [field, raw] of sampling?.fields ?? []) {
    const value = field === 'seed' && seedOffset ? (raw as number) + seedOffset : raw;
    const input = target.inputs.get(field);
    if (input) inputs.push(fieldTensor(field, input, value));
    else if (!sampling!.inputOnly.has(field) && !Array.isArray(value)) (parameters ??= {})[field] = value as number | boolean;
  }
  const request: InferenceRequest = { model: target.model, inputs, outputs: [{ name: output }] };
  if (parameters) request.parameters = parameters;
  return request;
}
