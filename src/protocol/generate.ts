/**
 * The generate extension (HTTP only): a flat JSON object whose fields are inputs by name
 * (`text_input` -> BYTES) and request parameters; the response flattens outputs into fields
 * (`text_output`). https://github.com/triton-inference-server/server/blob/main/docs/protocol/extension_generate.md
 */
import { Errors } from '../errors.js';
import { elementCount, type DataType, type Tensor, type BytesData } from '../tensor/index.js';
import type { InferenceRequest, InferenceResponse, Parameters } from '../inference/index.js';
import { bytesJsonString, tensorDataJson, tensorFromJson } from './json-tensor.js';
import { jsonWireBytes } from './raw-bytes-json.js';
import { checkParamValue, parseRequestParameters } from './request-parameters.js';
import { checkParameters } from './request-limits.js';

export interface GenerateInputMeta { name: string; datatype: DataType; shape: readonly number[] }


/** Concrete shape for `count` elements: fixed dims kept, the last variable dim takes the rest. */
function shapeFor(name: string, meta: readonly number[], count: number): number[] {
  const shape = meta.map((d) => (d === -1 ? 1 : d));
  const last = meta.lastIndexOf(-1);
  if (last >= 0) shape[last] = count / elementCount(shape.filter((_, i) => i !== last));
  if (meta.length === 0 && count === 1) return [];
  if (!Number.isInteger(shape[last] ?? 0) || elementCount(shape) !== count) {
    throw Errors.generateShapeMismatch(name, count, `[${meta.join(',')}]`);
  }
  return shape;
}

/**
 * Map a generate body to an InferenceRequest. Fields named like a model input become that input
 * (scalars are one element; arrays fill the variable dim); `parameters` and any other scalar field
 * become request parameters.
 */
export function decodeGenerateRequest(
  json: unknown,
  ctx: { model: string; version?: string; inputs: readonly GenerateInputMeta[]; lossy?: boolean },
): InferenceRequest {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw Errors.requestBodyNotObject('generate');
  const body = json as Record<string, unknown>;
  const byName = new Map(ctx.inputs.map((i) => [i.name, i]));
  const inputs: Tensor[] = [];
  let params: Parameters | undefined;
  if (body.parameters !== undefined) {
    const p = body.parameters;
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw Errors.requestParametersNotObject('generate');
    params = {};
    for (const [k, v] of Object.entries(p)) params[k] = checkParamValue('request', k, v, ctx.lossy);
  }
  for (const [key, value] of Object.entries(body)) {
    if (key === 'parameters' || key === 'id') continue;
    const meta = byName.get(key);
    if (!meta) {
      (params ??= {})[key] = checkParamValue('generate', key, value, ctx.lossy);
      continue;
    }
    const flat = Array.isArray(value) ? value.flat(Infinity) : [value];
    inputs.push(tensorFromJson(key, meta.datatype, shapeFor(key, meta.shape, flat.length), flat, ctx.lossy));
  }
  checkParameters('the generate request', params);
  const parsed = parseRequestParameters(params);
  const req: InferenceRequest = { model: ctx.model, inputs, ...parsed.fields };
  if (ctx.version) req.version = ctx.version;
  if (body.id !== undefined) {
    if (typeof body.id !== 'string') throw Errors.requestIdInvalid();
    req.id = body.id;
  }
  if (parsed.parameters) req.parameters = parsed.parameters;
  return req;
}

/**
 * Flatten a response: one-element outputs become scalars (BYTES as strings), others arrays. A
 * Buffer when BYTES that are not UTF-8 are kept raw, as Triton sends them (raw-bytes-json.ts).
 */
export function encodeGenerateResponse(res: InferenceResponse): string | Buffer {
  let s = `{"model_name":${JSON.stringify(res.model)},"model_version":${JSON.stringify(res.version)}`;
  if (res.id) s += `,"id":${JSON.stringify(res.id)}`;
  let bytes = false;
  for (const t of res.outputs) {
    let v: string;
    if (t.datatype === 'BYTES') bytes = true;
    if (t.datatype === 'BYTES' && (t.data as BytesData).length === 1) v = bytesJsonString((t.data as BytesData)[0]!);
    else {
      v = tensorDataJson(t);
      if (elementCount(t.shape) === 1) v = v.slice(1, -1);
    }
    s += `,${JSON.stringify(t.name)}:${v}`;
  }
  return bytes ? jsonWireBytes(s + '}') : s + '}';
}
