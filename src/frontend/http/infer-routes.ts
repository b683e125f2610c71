/** POST /v2/models/{m}[/versions/{v}]/infer: unary, or SSE with `Accept: text/event-stream`. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../errors.js';
import { encodeInferResponse, encodeInferResponseParts, type SharedMemoryAccess } from '../../protocol/index.js';
import type { DataPlane, Edge } from '../../dataplane/index.js';
import { decodeHttpInfer } from './decode-http-infer.js';
import { RequestHeaders } from './request-headers.js';
import { respondStream, respondUnary, wantsEventStream } from './respond-stream.js';
import { sendBinaryResponse } from './send-binary-response.js';
import { modelRoute, type ModelParams } from './model-route.js';
import { forwardDecoded, type SequenceRouting } from './sequence-routing.js';
import { StreamBuffer, type StreamBudget } from '../stream/index.js';

export function registerInferRoutes(
  app: FastifyInstance, plane: DataPlane, edge: Edge, shm: SharedMemoryAccess | undefined, compressThreshold: number,
  streams: StreamBudget, routing?: SequenceRouting,
): void {
  const handler = (request: FastifyRequest<{ Params: ModelParams }>, reply: FastifyReply) => {
    const { model, version } = request.params;
    // A decoding error is thrown to the one error handler (send-error.ts).
    const decoded = decodeHttpInfer(request, plane, model, version, shm);
    // serve --replicas only: a sequence another replica owns is answered there.
    if (routing && decoded.request.sequence && forwardDecoded(routing, request, reply, decoded.request.sequence.id)) return reply;
    // An event stream's account is its request's demand: set before the request starts.
    const buffer = wantsEventStream(request) ? new StreamBuffer(streams, 'sse') : undefined;
    if (buffer) decoded.request.demand = buffer;
    const call = edge.infer(decoded.request, new RequestHeaders(request.headers));
    const responses = call.responses;
    if (buffer) {
      // Events carry JSON only; shared-memory placement still applies.
      const enc = decoded.encoding.sharedMemory
        ? { binaryDefault: false, sharedMemory: decoded.encoding.sharedMemory }
        : { binaryDefault: false };
      return respondStream(reply, responses, (r) => encodeInferResponse(r, enc, shm).body, { endEvent: true, draining: () => plane.draining(), traceparent: call.traceparent, buffer });
    }
    return respondUnary(reply, model, responses, (r) => {
      const out = encodeInferResponseParts(r, decoded.encoding, shm);
      // The span that served the request, when it was traced (opentelemetry mode).
      const traceparent = call.traceparent();
      if (traceparent) reply.header('traceparent', traceparent);
      if (out.binary === undefined) reply.type('application/json').send(out.json);
      else sendBinaryResponse(request, reply, out.json, out.binary, compressThreshold);
    }, () => Errors.tooManyResponses(model));
  };
  modelRoute(app, 'POST', '/infer', handler);
}
