/**
 * Server-sent events for decoupled models and pipelines (Triton's HTTP front end cannot stream
 * /infer: server#2168, #8021). The status is decided by the first event: an error before it is a
 * plain HTTP error; after it, an `{"error": ...}` event ends the stream. Closing the connection
 * unsubscribes, which cancels the request all the way down. An error before the first byte is
 * sent as an Error, so the one error handler (start-http-server.ts) answers it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { toTributaryError } from '../../errors.js';
import type { InferenceResponse } from '../../inference/index.js';
import { wireMessageOf } from '../../protocol/index.js';

const DATA = Buffer.from('data: ');
const EVENT_END = Buffer.from('\n\n');

export function wantsEventStream(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return accept !== undefined && accept.includes('text/event-stream');
}

/** An empty final response only marks the end of a decoupled stream. */
function isEndMarker(r: InferenceResponse): boolean {
  return r.final && r.outputs.length === 0;
}

export function respondStream(
  reply: FastifyReply,
  responses: Observable<InferenceResponse>,
  encode: (r: InferenceResponse) => string | Buffer,
  options: { endEvent: boolean; draining: () => boolean; traceparent?: () => string | undefined },
): FastifyReply {
  const res = reply.raw;
  let started = false;
  let done = false;
  const start = () => {
    if (started) return;
    started = true;
    reply.hijack();
    // During a drain the connection ends with the stream (an SSE reply bypasses the onSend hook).
    const connection = options.draining() ? 'close' : 'keep-alive';
    // The span serving the request (opentelemetry mode) is named before the first event, as a unary reply names it.
    const traceparent = options.traceparent?.();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection, ...(traceparent ? { traceparent } : {}) });
  };
  const fail = (e: unknown) => {
    done = true;
    if (!started) {
      reply.send(toTributaryError(e));
      return;
    }
    res.end(`data: ${JSON.stringify({ error: wireMessageOf(e) })}\n\n`);
  };
  const sub = responses.subscribe({
    next(r) {
      if (done || isEndMarker(r)) return;
      let text: string | Buffer;
      try {
        text = encode(r);
      } catch (e) {
        sub?.unsubscribe();
        fail(e);
        return;
      }
      start();
      // A Buffer holds raw BYTES (not UTF-8) as Triton writes them; it goes out as it is.
      if (typeof text === 'string') res.write(`data: ${text}\n\n`);
      else res.write(Buffer.concat([DATA, text, EVENT_END]));
    },
    error: fail,
    complete() {
      done = true;
      start();
      res.end(options.endEvent ? 'event: end\ndata: {}\n\n' : undefined);
    },
  });
  res.on('close', () => {
    if (!done) {
      done = true;
      sub.unsubscribe();
    }
  });
  return reply;
}

/**
 * One response for a unary request. A decoupled model that sends a second response fails the
 * request at once (400) with a pointer to the streaming forms, and the rest is cancelled.
 */
export function respondUnary(
  reply: FastifyReply,
  model: string,
  responses: Observable<InferenceResponse>,
  send: (r: InferenceResponse) => void,
  tooMany: () => unknown,
): FastifyReply {
  let first: InferenceResponse | undefined;
  let done = false;
  const sub = responses.subscribe({
    next(r) {
      if (done) return;
      if (first === undefined) first = r;
      else if (!isEndMarker(r)) {
        done = true;
        sub?.unsubscribe();
        reply.send(toTributaryError(tooMany()));
        return;
      }
    },
    error(e) {
      if (done) return;
      done = true;
      reply.send(toTributaryError(e));
    },
    complete() {
      if (done) return;
      done = true;
      const r = first ?? { model, version: '', outputs: [], final: true };
      try {
        send(r);
      } catch (e) {
        reply.send(toTributaryError(e));
      }
    },
  });
  reply.raw.on('close', () => {
    if (!done) {
      done = true;
      sub.unsubscribe();
    }
  });
  return reply;
}
