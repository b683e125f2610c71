/**
 * OpenAI's error shape for every /v1 answer that is not a success:
 * `{"error": {"message", "type", "param", "code"}}` (https://platform.openai.com/docs/guides/error-codes).
 * `type` follows the status as OpenAI's API names them; `code` is the catalog's code, except
 * `model_not_found`, which OpenAI's clients and tools match on; `param` names the request field
 * at fault when the error is about one.
 */
import type { FastifyReply } from 'fastify';
import { Errors, toTributaryError, type TributaryError } from '../../errors.js';
import { httpStatusOf, wireMessageOf } from '../../protocol/index.js';

const params = new WeakMap<TributaryError, string>();

/** TRB_OPENAI_FIELD_INVALID about `field` (also its `param`). */
export function fieldError(field: string, detail: string): TributaryError {
  const e = Errors.openaiFieldInvalid(field, detail);
  params.set(e, field);
  return e;
}

/** TRB_OPENAI_LIMIT about `field` (also its `param`). */
export function limitError(field: string, what: string, got: number, max: number, flag?: string): TributaryError {
  const e = Errors.openaiLimit(field, what, got, max, flag);
  params.set(e, field);
  return e;
}

/** The same error naming `param` (a model's refusal of an input the request's field became). */
export function withParam(e: TributaryError, param: string): TributaryError {
  params.set(e, param);
  return e;
}

function typeOf(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

const NOT_FOUND_CODES = new Set([Errors.openaiModelNotFound.code, Errors.modelNotFound.code]);

/** The status and body of an error in OpenAI's shape. */
export function openAiError(error: unknown): { status: number; body: string } {
  const e = toTributaryError(error);
  const status = httpStatusOf(e);
  const code = NOT_FOUND_CODES.has(e.code) ? 'model_not_found' : e.code;
  const body = JSON.stringify({ error: { message: wireMessageOf(e), type: typeOf(status), param: params.get(e) ?? null, code } });
  return { status, body };
}

export function sendOpenAiError(reply: FastifyReply, error: unknown): FastifyReply {
  const { status, body } = openAiError(error);
  return reply.code(status).type('application/json').send(body);
}
