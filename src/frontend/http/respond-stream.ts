/**
 * Server-sent events for decoupled models and pipelines (Triton's HTTP front end cannot stream
 * /infer: server#2168, #8021). The status is decided by the first event: an error before it is a
 * plain HTTP error; after it, an `{"error": ...}` event ends the stream. Closing the connection
 * unsubscribes, which cancels the request all the way down. An error before the first byte is
 * sent as an Error, so the one error handler (start-http-server.ts) answers it.
 *
 * Backpressure: each event is accounted in the stream's StreamBuffer from `res.write` until its
 * callback (the bytes reached the socket), and the buffer is the request's `demand`, so a producer
 * that can wait pauses while an eighth of --stream-buffer-bytes waits. An event that would pass
 * the bound ends the stream with a TRB_STREAM_BUFFER_FULL error event and cancels the request.
 * `res.write()` returning false (16 KiB in the socket) is not the signal: pausing there would
 * wake the producer for every 16 KiB a reading client takes.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Observable, Subscription } from 'rxjs';
import { Errors, toTributaryError } from '../../errors.js';
import { startOn, type InferenceResponse, type ResponseSink, type StopRequest } from '../../inference/index.js';
import { wireMessageOf } from '../../protocol/index.js';
import type { StreamBuffer } from '../stream/index.js';

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

/**
 * `buffer` must be the `demand` of the request behind `responses` (set before the request was
 * started); the stream closes it when it ends.
 */
export function respondStream(
  reply: FastifyReply,
  responses: Observable<InferenceResponse>,
  encode: (r: InferenceResponse) => string | Buffer,
  options: { endEvent: boolean; draining: () => boolean; traceparent?: () => string | undefined; buffer: StreamBuffer },
): FastifyReply {
  const res = reply.raw;
  const buffer = options.buffer;
  let started = false;
  let done = false;
  // Assigned when subscribe() returns: a response emitted inside it finds it undefined.
  let sub: Subscription | undefined;
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
      buffer.close();
      reply.send(toTributaryError(e));
      return;
    }
    res.end(`data: ${JSON.stringify({ error: wireMessageOf(e) })}\n\n`);
  };
  /** Stop the request (unsubscribe cancels it) and end the stream with `e`. */
  const stop = (e: unknown) => {
    done = true;
    sub?.unsubscribe();
    fail(e);
  };
  sub = responses.subscribe({
    next(r) {
      if (done || isEndMarker(r)) return;
      let text: string | Buffer;
      try {
        text = encode(r);
      } catch (e) {
        stop(e);
        return;
      }
      // A Buffer holds raw BYTES (not UTF-8) as Triton writes them; it goes out as it is.
      const chunk = typeof text === 'string' ? `data: ${text}\n\n` : Buffer.concat([DATA, text, EVENT_END]);
      // A string's length stands for its bytes: the events are JSON, ASCII but for string values.
      const n = chunk.length;
      if (!buffer.admit(n)) {
        const o = buffer.overflowed();
        stop(Errors.streamBufferFull(r.model, o.held, o.bound, o.flag));
        return;
      }
      start();
      res.write(chunk, () => buffer.release(n));
    },
    error(e) {
      if (!done) fail(e);
    },
    complete() {
      if (done) return;
      done = true;
      start();
      res.end(options.endEvent ? 'event: end\ndata: {}\n\n' : undefined);
    },
  });
  if (done) sub.unsubscribe();
  res.on('close', () => {
    buffer.close();
    if (!done) {
      done = true;
      sub?.unsubscribe();
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
  answerOnce(reply.raw, model, { start: (sink) => startOn(responses, sink) }, send, (e) => { reply.send(toTributaryError(e)); }, tooMany);
  return reply;
}

/**
 * respondUnary's rule on a plain response (fast-infer.ts uses it without a fastify reply, and
 * starts its call on a sink, with no Observable): `send` the one response (an empty one if the
 * stream ended without), `fail` on an error, on a second response (`tooMany`), or when starting
 * or `send` throws; a connection closed first stops the request.
 */
export function answerOnce(
  res: ServerResponse,
  model: string,
  call: { start(sink: ResponseSink): StopRequest },
  send: (r: InferenceResponse) => void,
  fail: (e: unknown) => void,
  tooMany: () => unknown,
): void {
  const cancel = startOnce(model, call, send, fail, tooMany);
  if (cancel) res.on('close', cancel);
}

/**
 * answerOnce without a response object: returns what stops the request if its client goes first
 * (a no-op once it is answered), or undefined when it was answered or failed while starting. The
 * socket lane (infer-lane.ts) keeps it per connection rather than adding a listener per request.
 */
export function startOnce(
  model: string,
  call: { start(sink: ResponseSink): StopRequest },
  send: (r: InferenceResponse) => void,
  fail: (e: unknown) => void,
  tooMany: () => unknown,
): (() => void) | undefined {
  let first: InferenceResponse | undefined;
  let done = false;
  // Assigned when start() returns: a second response sent inside it finds it undefined.
  let stop: StopRequest | undefined;
  const sink: ResponseSink = {
    next(r) {
      if (done) return;
      if (first === undefined) first = r;
      else if (!isEndMarker(r)) {
        done = true;
        stop?.();
        fail(tooMany());
      }
    },
    error(e) {
      if (done) return;
      done = true;
      fail(e);
    },
    complete() {
      if (done) return;
      done = true;
      try {
        send(first ?? { model, version: '', outputs: [], final: true });
      } catch (e) {
        fail(e);
      }
    },
  };
  try {
    stop = call.start(sink);
  } catch (e) {
    sink.error(e);
    return undefined;
  }
  if (done) {
    stop();
    return undefined;
  }
  const started = stop;
  return () => {
    if (!done) {
      done = true;
      started();
    }
  };
}
