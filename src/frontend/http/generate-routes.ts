/**
 * The generate extension: `/generate` returns one flattened JSON response; `/generate_stream`
 * sends one SSE `data:` event per response (errors after the first event as `{"error"}` events),
 * and ends without an extra event, as Triton's does.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../errors.js';
import { decodeGenerateRequest, encodeGenerateResponse, forwardHeaders } from '../../protocol/index.js';
import type { DataPlane } from '../../dataplane/index.js';
import { decodeJsonBody } from './decode-http-infer.js';
import { joinTrace } from './join-trace.js';
import { modelRoute, type ModelParams } from './model-route.js';
import { respondStream, respondUnary } from './respond-stream.js';

export function registerGenerateRoutes(app: FastifyInstance, plane: DataPlane, headerPattern?: RegExp): void {
  const decode = (req: FastifyRequest<{ Params: ModelParams }>) => {
    const { model, version } = req.params;
    const meta = plane.modelMetadata(model, version);
    const body = req.body as Buffer | undefined;
    if (!body || body.byteLength === 0) throw Errors.requestBodyEmpty('generate', model);
    const ctx = { model, ...(version ? { version } : {}), inputs: meta.inputs };
    const request = decodeJsonBody(req, 'generate request', (json, lossy) => decodeGenerateRequest(json, { ...ctx, lossy }));
    const parameters = forwardHeaders(headerPattern, model, Object.entries(req.headers), request.parameters);
    if (parameters) request.parameters = parameters;
    return request;
  };
  const handler = (stream: boolean) => (req: FastifyRequest<{ Params: ModelParams }>, reply: FastifyReply) => {
    // A decoding error is thrown to the one error handler (send-error.ts).
    const request = decode(req);
    const traceContext = joinTrace(req.headers, request);
    const responses = plane.infer(request);
    if (stream) return respondStream(reply, responses, encodeGenerateResponse, { endEvent: false, draining: () => plane.draining(), traceContext });
    return respondUnary(reply, req.params.model, responses,
      (r) => {
        if (traceContext?.traceparent) reply.header('traceparent', traceContext.traceparent);
        reply.type('application/json').send(encodeGenerateResponse(r));
      },
      () => Errors.tooManyResponses(req.params.model));
  };
  modelRoute(app, 'POST', '/generate', handler(false));
  modelRoute(app, 'POST', '/generate_stream', handler(true));
}
