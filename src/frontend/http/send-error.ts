import type { FastifyReply } from 'fastify';
import { Errors, toTributaryError, type TributaryError } from '../../errors.js';
import { httpStatusOf, wireMessageOf } from '../../protocol/index.js';
import { bodyTooLarge } from './read-body.js';

/** The longest URL path segment (a model name, a region name) the router accepts. */
export const MAX_PARAM_LENGTH = 1024;

/**
 * Fastify's own errors, in the catalog's words (status and message a client can act on). Every
 * one a client can cause is a 4xx; only a fault of ours stays a 500.
 */
export function fromFastifyError(e: unknown, maxInputSize: number, what = 'the request'): TributaryError {
  const code = (e as { code?: string })?.code;
  const message = (e as Error)?.message ?? String(e);
  switch (code) {
    // A route schema refused the params or body (route-schemas.ts): "body/ready must be boolean".
    case 'FST_ERR_VALIDATION': return Errors.requestFieldInvalid(what, message);
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return bodyTooLarge(maxInputSize);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH': return Errors.httpMalformed('the request body size did not match Content-Length');
    case 'FST_ERR_MAX_PARAM_LENGTH': return Errors.httpUrlTooLong(MAX_PARAM_LENGTH);
    case 'FST_ERR_BAD_URL': return Errors.httpMalformed('the URL path is not valid percent-encoding');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return Errors.httpMediaType();
    case 'Z_DATA_ERROR': case 'Z_BUF_ERROR': case 'Z_NEED_DICT':
      return Errors.httpBodyUndecodable(message);
  }
  if (typeof code === 'string' && code.startsWith('FST_')) {
    const status = (e as { statusCode?: number }).statusCode ?? 500;
    return status >= 500 ? Errors.internal(message) : Errors.httpMalformed(message);
  }
  return toTributaryError(e);
}

/** `{"error": "..."}` with the status from the one table and the bounded message. */
export function sendError(reply: FastifyReply, error: unknown): FastifyReply {
  const e = toTributaryError(error);
  return reply.code(httpStatusOf(e)).type('application/json').send(JSON.stringify({ error: wireMessageOf(e) }));
}
