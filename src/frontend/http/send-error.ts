import type { FastifyReply } from 'fastify';
import { Errors, toTributaryError, type TributaryError } from '../../errors.js';
import { httpStatusOf } from '../../protocol/index.js';
import { bodyTooLarge } from './read-body.js';

/** Fastify's own errors, in the catalog's words (status and message a client can act on). */
export function fromFastifyError(e: unknown, bodyLimit: number): TributaryError {
  const code = (e as { code?: string })?.code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return bodyTooLarge(bodyLimit);
  }
  if (code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') return Errors.badRequest('request body size did not match Content-Length');
  if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') {
    return Errors.badRequest(`could not decompress the request body (Content-Encoding): ${(e as Error).message}`);
  }
  if (typeof code === 'string' && code.startsWith('FST_')) {
    const status = (e as { statusCode?: number }).statusCode ?? 500;
    return status >= 500 ? Errors.internal((e as Error).message) : Errors.badRequest((e as Error).message);
  }
  return toTributaryError(e);
}

/** `{"error": "..."}` with the status from the one table. */
export function sendError(reply: FastifyReply, error: unknown): FastifyReply {
  const e = toTributaryError(error);
  return reply.code(httpStatusOf(e)).type('application/json').send(JSON.stringify({ error: e.message }));
}
