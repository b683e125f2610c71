import type { IncomingHttpHeaders } from 'node:http';
import type { InferenceRequest, TraceContext } from '../../inference/index.js';

/**
 * The caller's W3C `traceparent` header, set on the request so that its span joins the caller's
 * trace; once the request is traced (opentelemetry mode) the context names the server's span, for
 * the response's own `traceparent` header.
 */
export function joinTrace(headers: IncomingHttpHeaders, request: InferenceRequest): TraceContext | undefined {
  const traceparent = headers.traceparent;
  return typeof traceparent === 'string' ? (request.traceContext = { parent: traceparent }) : undefined;
}
