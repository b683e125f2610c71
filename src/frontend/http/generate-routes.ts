/**
 * The generate extension: `/generate` returns one flattened JSON response; `/generate_stream`
 * sends one SSE `data:` event per response (errors after the first event as `{"error"}` events),
 * and ends without an extra event, as Triton's does.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../errors.js';
import { decodeGenerateRequest, encodeGenerateResponse } from '../../protocol/index.js';
import type { DataPlane, Edge } from '../../dataplane/index.js';
import { decodeJsonBody } from './decode-http-infer.js';
import { modelRoute, type ModelParams } from './model-route.js';
import { RequestHeaders } from './request-headers.js';
import { respondStream, respondUnary } from './respond-stream.js';
import { StreamBuffer, type StreamBudget } from '../stream/index.js';

export function registerGenerateRoutes(app: FastifyInstance, plane: DataPlane, edge: Edge, streams: StreamBudget): void {
  const decode = (req: FastifyRequest<{ Params: ModelParams }>) => {
    const { model, version } = req.params;
    const meta = plane.modelMetadata(model, version);
    const body = req.body as Buffer | undefined;
    if (!body || body.byteLength === 0) throw Errors.requestBodyEmpty('generate', model);
    const ctx = { model, ...(version ? { version } : {}), inputs: meta.inputs };
    return decodeJsonBody(req, 'generate request', (json, lossy) => decodeGenerateRequest(json, { ...ctx, lossy }));
  };
  const handler = (stream: boolean) => (req: FastifyRequest<{ Params: ModelParams }>, reply: FastifyReply) => {
    // A decoding error is thrown to the one error handler (send-error.ts).
    const request = decode(req);
    // The stream's account is the request's demand: set before the request starts.
    const buffer = stream ? new StreamBuffer(streams, 'sse') : undefined;
    if (buffer) request.demand = buffer;
    const call = edge.infer(request, new RequestHeaders(req.headers));
    const responses = call.responses;
    if (buffer) return respondStream(reply, responses, encodeGenerateResponse, { endEvent: false, draining: () => plane.draining(), traceparent: call.traceparent, buffer });
    return respondUnary(reply, req.params.model, responses,
      (r) => {
        const traceparent = call.traceparent();
        if (traceparent) reply.header('traceparent', traceparent);
        reply.type('application/json').send(encodeGenerateResponse(r));
      },
      () => Errors.tooManyResponses(req.params.model));
  };
  modelRoute(app, 'POST', '/generate', handler(false));
  modelRoute(app, 'POST', '/generate_stream', handler(true));
}
