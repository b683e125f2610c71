/**
 * The bytes of an /infer answer outside fastify (fast-infer.ts on node's response, infer-lane.ts
 * on the socket): what the route would send, decided once for both writers. A binary answer with
 * less than 64 KiB of tensor bytes is framed in one buffer; a larger one is a list of chunks
 * (header, then each tensor's own bytes) so the socket writes straight from the output buffers.
 */
import { toTributaryError } from '../../errors.js';
import {
  binaryChunks, binaryOutputSize, encodeInferResponseParts, frameBinary, httpStatusOf, wireMessageOf,
  type ResponseEncoding, type SharedMemoryAccess,
} from '../../protocol/index.js';
import type { InferenceResponse } from '../../inference/index.js';

/**
 * Tensor bytes from which a binary answer is written as chunks rather than framed in one buffer
 * (below it framing is cheaper than a stream); the route's writer (send-binary-response.ts) too.
 */
export const CHUNKED_MIN_BYTES = 64 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';
const BINARY_TYPE = 'application/octet-stream';

export interface InferAnswer {
  status: number;
  contentType: string;
  /** Inference-Header-Content-Length, for a binary answer. */
  headerLength: number | undefined;
  /** Content-Length. */
  length: number;
  /** One buffer, or the chunks of a large binary answer. */
  body: Uint8Array | readonly Uint8Array[];
}

export function inferAnswer(r: InferenceResponse, enc: ResponseEncoding, sharedMemory: SharedMemoryAccess | undefined): InferAnswer {
  const out = encodeInferResponseParts(r, enc, sharedMemory);
  if (out.binary === undefined) {
    const json = Buffer.from(out.json);
    return { status: 200, contentType: JSON_TYPE, headerLength: undefined, length: json.byteLength, body: json };
  }
  if (binaryOutputSize(out.binary) < CHUNKED_MIN_BYTES) {
    const framed = frameBinary(out.json, out.binary);
    return { status: 200, contentType: BINARY_TYPE, headerLength: framed.headerLength, length: framed.body.byteLength, body: framed.body };
  }
  const { chunks, headerLength, byteLength } = binaryChunks(out.json, out.binary);
  return { status: 200, contentType: BINARY_TYPE, headerLength, length: byteLength, body: chunks };
}

/** `{"error": "..."}` with the status from the one table, as the fastify route's error handler answers. */
export function errorAnswer(error: unknown): InferAnswer {
  const e = toTributaryError(error);
  const body = Buffer.from(JSON.stringify({ error: wireMessageOf(e) }));
  return { status: httpStatusOf(e), contentType: JSON_TYPE, headerLength: undefined, length: body.byteLength, body };
}
