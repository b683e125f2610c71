/**
 * Bounds on the shape of one inference request, the same for every wire format: the HTTP/JSON
 * decoder (v2-json.ts) and the gRPC decoder (grpc/infer-request-from-proto.ts) both call these
 * before building the request, so an oversized request is refused with the same code and message
 * whichever way it came. Body and message sizes are the front ends' own limits.
 *
 * The bounds sit well above what real models use (Triton sets none, so they are ours): they exist
 * so that counts and strings that only an attacker sends are not copied, logged, or handed to a
 * model. Each refusal is INVALID_ARG (HTTP 400, gRPC INVALID_ARGUMENT).
 */
import { Errors } from '../errors.js';

export const REQUEST_LIMITS = Object.freeze({
  /** Inputs in one request (ONNX models with more than a few hundred are unheard of). */
  maxInputs: 1024,
  /** Requested outputs in one request. */
  maxOutputs: 1024,
  /** Entries in one parameters map: the request's, or one input's or output's. */
  maxParameters: 64,
  /** UTF-8 bytes of a parameter name. */
  maxParameterNameBytes: 256,
  /** UTF-8 bytes of a string parameter value (large data belongs in a tensor). */
  maxParameterValueBytes: 64 * 1024,
  /** Dimensions of one tensor's shape (NumPy 2 allows 64; ONNX models stay far below). */
  maxRank: 64,
});

export function checkInputCount(model: string, count: number): void {
  if (count > REQUEST_LIMITS.maxInputs) throw Errors.requestTooManyInputs(model, count, REQUEST_LIMITS.maxInputs);
}

export function checkOutputCount(model: string, count: number): void {
  if (count > REQUEST_LIMITS.maxOutputs) throw Errors.requestTooManyOutputs(model, count, REQUEST_LIMITS.maxOutputs);
}

export function checkRank(tensor: string, rank: number): void {
  if (rank > REQUEST_LIMITS.maxRank) throw Errors.requestRankTooLarge(tensor, rank, REQUEST_LIMITS.maxRank);
}

/** UTF-8 length of `s`, computed only when the UTF-16 length alone cannot settle `s <= max`. */
function overBytes(s: string, max: number): number | undefined {
  if (s.length * 3 <= max) return undefined;
  const bytes = Buffer.byteLength(s, 'utf8');
  return bytes > max ? bytes : undefined;
}

/**
 * The count of a decoded parameters map (`where` names its owner: "request", "input 'x'") and the
 * size of each name and string value.
 */
export function checkParameters(where: string, params: Readonly<Record<string, unknown>> | undefined): void {
  if (params === undefined) return;
  const keys = Object.keys(params);
  if (keys.length > REQUEST_LIMITS.maxParameters) throw Errors.requestTooManyParameters(where, keys.length, REQUEST_LIMITS.maxParameters);
  for (const key of keys) checkParameter(where, key, params[key]);
}

/** One parameter's name and (string) value size. */
function checkParameter(where: string, key: string, value: unknown): void {
  const keyBytes = overBytes(key, REQUEST_LIMITS.maxParameterNameBytes);
  if (keyBytes !== undefined) throw Errors.requestParameterTooLarge(where, key, 'name', keyBytes, REQUEST_LIMITS.maxParameterNameBytes);
  if (typeof value !== 'string') return;
  const valueBytes = overBytes(value, REQUEST_LIMITS.maxParameterValueBytes);
  if (valueBytes !== undefined) throw Errors.requestParameterTooLarge(where, key, 'value', valueBytes, REQUEST_LIMITS.maxParameterValueBytes);
}
