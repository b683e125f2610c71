/**
 * JSON bodies for the routes that are not /infer (and not /generate), so their fastify schemas
 * validate objects: such a route names its body in `config.jsonBody` ("the load request"), and
 * the one content-type parser reads every body as a Buffer (read-body.ts: size limit,
 * decompression) and then parses these with the protocol's JSON depth bound. An absent body is
 * `{}`, as Triton takes it. /infer keeps the Buffer: it parses its JSON header itself and views
 * binary tensors in place.
 */
import type { FastifyRequest, preValidationHookHandler } from 'fastify';
import type { Readable } from 'node:stream';
import { parseBoundedJsonBytes } from '../../dataplane/index.js';

export interface JsonRouteConfig {
  /** What the body is, in messages ("the load request"). */
  jsonBody?: string;
}

type Parser = (request: FastifyRequest, payload: Readable, done: (err: Error | null, body?: unknown) => void) => void;

/** The JSON name of the route `request` matched, if its body is JSON. */
export function jsonBodyOf(request: FastifyRequest): string | undefined {
  return (request.routeOptions.config as JsonRouteConfig | undefined)?.jsonBody;
}

/** `read` (the Buffer parser), then JSON for routes that declare a JSON body. */
export function jsonAwareParser(read: Parser): Parser {
  return (request, payload, done) => read(request, payload, (err, body) => {
    const what = err ? undefined : jsonBodyOf(request);
    if (what === undefined) return done(err, body);
    const bytes = body as Buffer;
    try {
      done(null, bytes.byteLength === 0 ? {} : parseBoundedJsonBytes(bytes, what));
    } catch (e) {
      done(e as Error);
    }
  });
}

/** A POST without a body never reaches the parser: its body is `{}` before the schema sees it. */
export const emptyJsonBody: preValidationHookHandler = (request, _reply, done) => {
  if (request.body === undefined) request.body = {};
  done();
};
