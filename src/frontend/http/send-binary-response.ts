/**
 * A binary-extension response: JSON header, then the outputs' bytes. Small responses are framed in
 * one buffer (one write; the copy is noise). Large ones go out as a stream of chunks (header, then
 * each tensor's own bytes) with Content-Length set: no framing copy, the socket writes straight from
 * the output buffers. When the client accepts compression the framed buffer goes through the
 * onSend compression hook as before (compressing 16 MB dwarfs one copy).
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HEADER_LENGTH, binaryChunks, binaryOutputSize, frameBinary } from '../../protocol/index.js';
import type { Tensor } from '../../tensor/index.js';
import { responseEncoding } from './compression.js';
import { CHUNKED_MIN_BYTES } from './infer-answer.js';

export function sendBinaryResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  header: string | Buffer,
  tensors: readonly Tensor[],
  compressThreshold: number,
): FastifyReply {
  const size = binaryOutputSize(tensors);
  if (size < CHUNKED_MIN_BYTES || responseEncoding(request, size, compressThreshold) !== undefined) {
    const framed = frameBinary(header, tensors);
    return reply.header(HEADER_LENGTH, framed.headerLength).type('application/octet-stream').send(framed.body);
  }
  const { chunks, headerLength, byteLength } = binaryChunks(header, tensors);
  return reply
    .header(HEADER_LENGTH, headerLength)
    .header('content-length', byteLength)
    .type('application/octet-stream')
    .send(Readable.from(chunks, { objectMode: false }));
}
