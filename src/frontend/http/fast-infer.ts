/**
 * The common unary /infer request, served on node's HTTP server without fastify's request
 * machinery: no route lookup with parameters, no Request/Reply objects, no hook chain
 * (preParsing, content-type parser, preValidation, preHandler, two onSend hooks) and no async
 * resource per request. It decodes, runs and answers exactly as the fastify route does (the same
 * body reader, decoder, edge, encoders and error table); only the framework around them is gone.
 * Measured with `npm run bench edge`: see docs/PERFORMANCE.md, "Cost per request at the edges".
 *
 * Which requests it takes is ordinary-infer.ts's rule; the rest go to fastify as before, and so do
 * requests while the server is closing and, on replicas that relay sequences, all of them. On a
 * plain-HTTP server most ordinary requests never reach node's HTTP server at all: the socket lane
 * (infer-lane.ts) serves them first; this listener serves those of HTTPS and of connections the
 * lane has handed to node.
 */
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { Errors } from '../../errors.js';
import type { DataPlane, Edge, OpenCall } from '../../dataplane/index.js';
import { HEADER_LENGTH, type SharedMemoryAccess } from '../../protocol/index.js';
import type { RestrictionTable } from '../restrict/index.js';
import { decodeHttpInfer } from './decode-http-infer.js';
import { errorAnswer, inferAnswer, type InferAnswer } from './infer-answer.js';
import { inferTarget, ordinaryHeaders } from './ordinary-infer.js';
import { readBody } from './read-body.js';
import { RequestHeaders } from './request-headers.js';
import { answerOnce } from './respond-stream.js';

export interface FastInferOptions {
  plane: DataPlane;
  edge: Edge;
  sharedMemory: SharedMemoryAccess | undefined;
  maxInputSize: number;
  restrictions: RestrictionTable;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Put the lean path in front of the server's 'request' listeners (fastify's). Call it after every
 * other wrapper of those listeners that must see /infer first.
 */
export function serveInferDirectly(server: HttpServer, o: FastInferOptions): void {
  const handlers = server.listeners('request') as Listener[];
  server.removeAllListeners('request');
  const read = readBody(o.maxInputSize);
  const draining = () => o.plane.draining();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const target = req.method === 'POST' && server.listening ? inferTarget(req.url ?? '') : undefined;
    if (target === undefined || !ordinaryHeaders(req.headers, o.restrictions)) {
      for (const h of handlers) h.call(server, req, res);
      return;
    }
    read({ headers: req.headers, raw: req }, req, (err, body) => {
      // A refused body was abandoned unread: the connection cannot carry another request.
      if (err) return answer(res, errorAnswer(err), undefined, true);
      let call: OpenCall;
      let encoding;
      try {
        const decoded = decodeHttpInfer({ body, headers: req.headers }, o.plane, target.model, target.version, o.sharedMemory);
        encoding = decoded.encoding;
        call = o.edge.open(decoded.request, new RequestHeaders(req.headers));
      } catch (e) {
        return answer(res, errorAnswer(e), undefined, draining());
      }
      const enc = encoding;
      answerOnce(
        res, target.model, call,
        (r) => answer(res, inferAnswer(r, enc, o.sharedMemory), call.traceparent(), draining()),
        (e) => answer(res, errorAnswer(e), undefined, draining()),
        () => Errors.tooManyResponses(target.model),
      );
    });
  });
}

/** An answer on node's response: the headers the route would send, `Connection: close` when the server drains. */
function answer(res: ServerResponse, a: InferAnswer, traceparent: string | undefined, close: boolean): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string | number> = {};
  if (traceparent) headers.traceparent = traceparent;
  if (close) headers.connection = 'close';
  if (a.headerLength !== undefined) headers[HEADER_LENGTH] = a.headerLength;
  headers['content-type'] = a.contentType;
  headers['content-length'] = a.length;
  res.writeHead(a.status, headers);
  if (a.body instanceof Uint8Array) {
    res.end(a.body);
    return;
  }
  for (const c of a.body) res.write(c);
  res.end();
}
