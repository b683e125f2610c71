import type { FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { Errors } from '../../errors.js';
import {
  HEADER_LENGTH, decodeInferRequest, parseHeaderLength, rawBodyInput, splitInferBody,
  type DecodeContext, type DecodedInfer, type SharedMemoryAccess,
} from '../../protocol/index.js';
import { decodeBoundedJsonBytes, type DataPlane } from '../../dataplane/index.js';
import { markExclusive } from '../../tensor/index.js';

/** Bodies at least this large may be moved to a worker thread rather than copied there. */
const EXCLUSIVE_MIN_BYTES = 64 * 1024;

/**
 * The body buffer is this request's alone (read-body.ts allocates it per request), so a
 * worker-thread backend may take it instead of copying it. A pipeline releases the mark on entry,
 * since it may feed one input to several steps (src/dataflow/ensemble-scheduler.ts).
 */
function offerBody(body: Buffer): void {
  if (body.byteLength >= EXCLUSIVE_MIN_BYTES) markExclusive(body.buffer);
}

/**
 * A POST body decoded from JSON (depth-bounded; an empty body is `{}`), parsed exactly only when
 * `decode` needs it (decodeBoundedJsonBytes).
 */
export function decodeJsonBody<T>(request: FastifyRequest, what: string, decode: (json: unknown, lossy: boolean) => T): T {
  const body = request.body as Buffer | undefined;
  if (!body || body.byteLength === 0) return decode({}, false);
  return decodeBoundedJsonBytes(body, what, decode);
}

/**
 * An /infer body: v2 JSON, JSON + binary tensors, or the raw-body form (header length 0, the one
 * input's bytes; shape from the model, all outputs binary).
 */
export function decodeHttpInfer(
  request: { readonly body?: unknown; readonly headers: IncomingHttpHeaders },
  plane: DataPlane,
  model: string,
  version: string | undefined,
  sharedMemory: SharedMemoryAccess | undefined,
): DecodedInfer {
  const body = request.body as Buffer | undefined;
  if (!body || body.byteLength === 0) throw Errors.requestBodyEmpty('inference', model);
  const headerLength = parseHeaderLength(request.headers[HEADER_LENGTH]);
  if (headerLength === 0) {
    const meta = plane.modelMetadata(model, version);
    const config = plane.modelConfig(model, version);
    const input = rawBodyInput(body, model, meta.inputs, config.max_batch_size);
    const req: DecodedInfer['request'] = { model, inputs: [input] };
    if (version) req.version = version;
    offerBody(body);
    return { request: req, encoding: { binaryDefault: true } };
  }
  const { json, binary } = splitInferBody(body, headerLength);
  // One context of one shape, its `lossy` set per attempt (no copy per decode).
  const ctx: DecodeContext = { model, version, binary, sharedMemory, lossy: true };
  const decoded = decodeBoundedJsonBytes(binary ? body.subarray(0, json.byteLength) : body, 'inference request', (obj, lossy) => {
    ctx.lossy = lossy;
    return decodeInferRequest(obj, ctx);
  });
  if (binary) offerBody(body);
  return decoded;
}
