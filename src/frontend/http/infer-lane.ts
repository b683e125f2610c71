/**
 * The socket lane: ordinary unary /infer requests on plain-HTTP connections, read and answered on
 * the socket itself, before node's HTTP server is involved. Node's server costs 30-45 µs of CPU per
 * request on its own (its parser's callbacks, an IncomingMessage and a ServerResponse with their
 * stream machinery, header objects, events, timers), more than everything Tributary does for an
 * identity request; the lane's head parser and writer cost a few. Measured in docs/PERFORMANCE.md,
 * "Cost per request at the edges".
 *
 * The lane owns a connection from its first byte. Each request's head is read by
 * parse-request-head.ts, which takes only a strict subset of HTTP/1.1, and the request must be an
 * ordinary /infer (ordinary-infer.ts) whose body fits the input limit. At the first request that
 * is anything else (another route, a chunked body, a header the parser does not take, a server
 * closing), the connection is handed to node's HTTP server for the rest of its life, with the
 * bytes not yet consumed: node parses them as if it had read them itself, and fastify serves them
 * with every behaviour it has. So a request the lane cannot frame with certainty is never its own.
 *
 * What node would do for the connections it serves, the lane does for its own: it answers and runs
 * requests in order (pipelined ones wait, and reading stops while 1 MiB of them waits), stops a
 * request whose client went away, bounds the time to a whole head and a whole request (the 408s
 * node's parser gives, --http-header-timeout-secs and --http-request-timeout-secs) and how long a
 * connection may sit idle between requests (the server's keep-alive timeout), answers with
 * `Connection: close` and closes when the client asked or the server drains, compresses answers as
 * the route does when the client accepts it (compression.ts's rule), and closes idle connections
 * when the server closes (server.closeIdleConnections covers the lane's). The connection guard
 * counts the connection as established at its first request, as it does on node's side.
 */
import { STATUS_CODES, maxHeaderSize, type Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import { deflate, gzip } from 'node:zlib';
import { Errors, type TributaryError } from '../../errors.js';
import type { DataPlane, Edge, OpenCall } from '../../dataplane/index.js';
import type { ResponseEncoding, SharedMemoryAccess } from '../../protocol/index.js';
import type { RestrictionTable } from '../restrict/index.js';
import type { ConnectionGuard } from '../transport/index.js';
import { rawErrorResponse } from './client-error.js';
import { decodeHttpInfer } from './decode-http-infer.js';
import { errorAnswer, inferAnswer, type InferAnswer } from './infer-answer.js';
import { inferTarget, ordinaryHeaders, type InferTarget } from './ordinary-infer.js';
import { parseRequestHead, type RequestHead } from './parse-request-head.js';
import { bodyBuffer } from './read-body.js';
import { RequestHeaders } from './request-headers.js';
import { startOnce } from './respond-stream.js';
import { pickEncoding } from './compression.js';
import { createLogger } from '../../logger.js';

const log = createLogger('http');

const HEAD_END = Buffer.from('\r\n\r\n');
/** Largest body the lane takes; past it node's path reads the body its own way (read-body.ts). */
const MAX_LANE_BODY = 64 * 1024 * 1024;
/** Bytes of pipelined requests kept while one runs; past it the socket is not read until it is answered. */
const MAX_WAITING_BYTES = 1024 * 1024;
/** Answers smaller than this are written as one buffer (one write), larger ones as a writev. */
const ONE_WRITE_MAX = 16 * 1024;
/** Timeouts are checked at a quarter of the shortest one, but at least this often and at most this often. */
const MAX_SWEEP_MS = 1000;
const MIN_SWEEP_MS = 25;

export interface InferLaneOptions {
  plane: DataPlane;
  edge: Edge;
  sharedMemory: SharedMemoryAccess | undefined;
  maxInputSize: number;
  restrictions: RestrictionTable;
  /** Time to a whole request head (from the connection or the request's first byte); 0 = none. */
  headerTimeoutMs: number;
  /** Time to a whole request, body included; 0 = none. */
  requestTimeoutMs: number;
  /** Answers of at least this many bytes are compressed when the client accepts it, as the route's are. */
  compressThreshold: number;
  guard: ConnectionGuard;
}

type ConnectionListener = (socket: Socket) => void;

const lanes = new WeakMap<HttpServer, InferLane>();

/** The lane serving `server`'s connections, if it has one. */
export function inferLaneOf(server: HttpServer): InferLane | undefined {
  return lanes.get(server);
}

/**
 * Serve ordinary /infer requests of `server`'s connections on the sockets. `nodeListeners` are the
 * server's own 'connection' listeners (node's HTTP parser), taken before any other was added: the
 * lane replaces them and calls them when it hands a connection over. Listeners added before the
 * lane (the connection guard) stay in front of it.
 */
export function serveInferLane(server: HttpServer, nodeListeners: readonly ConnectionListener[], o: InferLaneOptions): InferLane {
  for (const l of nodeListeners) server.removeListener('connection', l);
  const lane = new InferLane(server, nodeListeners, o);
  server.on('connection', (socket: Socket) => lane.adopt(socket));
  // The server's own ways of closing connections cover the lane's: server.close() (which closes
  // idle ones), fastify's close and close-http-server.ts all call these.
  const closeIdle = server.closeIdleConnections.bind(server);
  const closeAll = server.closeAllConnections.bind(server);
  server.closeIdleConnections = () => {
    closeIdle();
    lane.closeIdle();
  };
  server.closeAllConnections = () => {
    closeAll();
    lane.closeAll();
  };
  lanes.set(server, lane);
  return lane;
}

let dateSecond = -1;
let dateText = '';
/** The Date header's value, made once a second (as node does). */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

export class InferLane {
  /** Requests the lane has answered, and connections it handed to node (for tests and diagnostics). */
  served = 0;
  handedOver = 0;
  readonly #connections = new Set<LaneConnection>();
  #sweeper: NodeJS.Timeout | undefined;
  readonly #sweepMs: number;

  constructor(
    readonly server: HttpServer,
    readonly nodeListeners: readonly ConnectionListener[],
    readonly o: InferLaneOptions,
  ) {
    const timeouts = [o.headerTimeoutMs, o.requestTimeoutMs, server.keepAliveTimeout].filter((t) => t > 0);
    this.maxBody = Math.min(o.maxInputSize, MAX_LANE_BODY);
    this.#sweepMs = Math.max(MIN_SWEEP_MS, Math.min(MAX_SWEEP_MS, Math.floor(Math.min(...timeouts, 4 * MAX_SWEEP_MS) / 4)));
  }

  /** node's limit on a request's line and headers (--max-http-header-size): past it node's parser answers 431. */
  readonly maxHeaderSize = maxHeaderSize;
  /** The largest body the lane takes: the input limit, at most MAX_LANE_BODY. */
  readonly maxBody: number;

  adopt(socket: Socket): void {
    if (socket.destroyed) return;
    this.#connections.add(new LaneConnection(this, socket));
    if (this.#sweeper === undefined) {
      this.#sweeper = setInterval(() => this.#sweep(), this.#sweepMs);
      this.#sweeper.unref();
    }
  }

  forget(c: LaneConnection): void {
    this.#connections.delete(c);
    if (this.#connections.size === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  /** Close the connections between requests (node's closeIdleConnections for the lane's own). */
  closeIdle(): void {
    for (const c of this.#connections) if (c.idle()) c.socket.destroy();
  }

  /** Close every connection the lane holds. */
  closeAll(): void {
    for (const c of this.#connections) c.socket.destroy();
  }

  #sweep(): void {
    const now = performance.now();
    for (const c of this.#connections) c.checkTime(now);
  }
}

/** A request whose head was taken and whose body is still arriving. */
interface Incoming {
  head: RequestHead;
  target: InferTarget;
  body: Buffer;
  received: number;
}

class LaneConnection {
  /** Bytes received and not yet consumed: the start of the next request (or several, pipelined). */
  #buf: Buffer | undefined;
  #incoming: Incoming | undefined;
  /** A request of ours runs; nothing more is parsed until its answer is written. */
  #busy = false;
  /** The loop in #next is running (an answer given inside it does not start another). */
  #looping = false;
  /** Stops the running request when its client goes away. */
  #cancel: (() => void) | undefined;
  #seq = 0;
  /** When the request now arriving started arriving (performance.now()); -1 when none is. */
  #since: number;
  /** Bytes moved when last swept, and when that last changed: the keep-alive timeout's clock. */
  #moved = 0;
  #quietSince: number;
  #gone = false;
  #established = false;

  constructor(readonly lane: InferLane, readonly socket: Socket) {
    this.#since = performance.now();
    this.#quietSince = this.#since;
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('error', this.#onError);
    socket.on('close', this.#onClose);
  }

  /** Between requests: nothing arriving, nothing running. */
  idle(): boolean {
    return !this.#busy && this.#incoming === undefined && this.#buf === undefined;
  }

  /** The head and request timeouts, and the keep-alive one between requests. */
  checkTime(now: number): void {
    if (this.#gone || this.#busy) return;
    const o = this.lane.o;
    if (this.#since >= 0) {
      const head = this.#incoming === undefined;
      const limit = head ? o.headerTimeoutMs : o.requestTimeoutMs;
      if (limit > 0 && now - this.#since >= limit) {
        this.#refuse(head
          ? Errors.httpTimeout('line and headers', limit / 1000, '--http-header-timeout-secs')
          : Errors.httpTimeout('body', limit / 1000, '--http-request-timeout-secs'));
      }
      return;
    }
    const keepAlive = this.lane.server.keepAliveTimeout;
    const moved = this.socket.bytesRead + this.socket.bytesWritten;
    if (moved !== this.#moved) {
      this.#moved = moved;
      this.#quietSince = now;
    } else if (keepAlive > 0 && now - this.#quietSince >= keepAlive) {
      this.socket.destroy();
    }
  }

  readonly #onData = (chunk: Buffer): void => {
    // After an answer with `Connection: close`, or a refusal: nothing more is read or kept.
    if (this.#gone) return;
    try {
      this.#read(chunk);
    } catch (e) {
      // A fault of the lane's own (what a request can get wrong is answered, not thrown) costs
      // this connection, never the process and its other requests.
      log.error(`HTTP: closing a connection after an unexpected error: ${(e as Error).stack ?? String(e)}`);
      this.#gone = true;
      this.socket.destroy();
    }
  };

  #read(chunk: Buffer): void {
    if (this.#since < 0) this.#since = performance.now();
    const incoming = this.#incoming;
    if (incoming !== undefined) {
      const need = incoming.body.length - incoming.received;
      if (chunk.length < need) {
        incoming.body.set(chunk, incoming.received);
        incoming.received += chunk.length;
        return;
      }
      incoming.body.set(need === chunk.length ? chunk : chunk.subarray(0, need), incoming.received);
      this.#incoming = undefined;
      if (chunk.length > need) this.#buf = chunk.subarray(need);
      this.#serve(incoming.head, incoming.target, incoming.body);
      this.#next();
      return;
    }
    // A head sent a few bytes at a time is copied and searched again at each piece: within node's
    // 16 KiB head bound that costs about what each read costs anyway, so no incremental parser.
    this.#buf = this.#buf === undefined ? chunk : Buffer.concat([this.#buf, chunk]);
    if (this.#busy) {
      if (this.#buf.length > MAX_WAITING_BYTES) this.socket.pause();
      return;
    }
    this.#next();
  }

  readonly #onEnd = (): void => {
    // As node's server does (its httpAllowHalfOpen is off): a client that ends its side has left;
    // what runs is stopped, and what was half sent is dropped.
    this.#leave();
    this.socket.end();
  };

  readonly #onError = (): void => {
    // ECONNRESET and the like: 'close' follows and stops what runs.
  };

  readonly #onClose = (): void => {
    this.#leave();
    this.lane.forget(this);
  };

  /** The client is gone: the running request is stopped, nothing more is read or kept. */
  #leave(): void {
    this.#gone = true;
    this.#buf = undefined;
    this.#incoming = undefined;
    const cancel = this.#cancel;
    this.#cancel = undefined;
    cancel?.();
  }

  /** Take the requests waiting in #buf, one at a time, while none runs. */
  #next(): void {
    if (this.#looping) return;
    this.#looping = true;
    try {
      while (!this.#busy && !this.#gone && this.#buf !== undefined && this.#incoming === undefined) {
        if (!this.#take(this.#buf)) return;
      }
    } finally {
      this.#looping = false;
    }
  }

  /** One request from the front of `buf`: served, or waiting for its bytes (false), or handed over (false). */
  #take(buf: Buffer): boolean {
    const lane = this.lane;
    const end = buf.indexOf(HEAD_END);
    if (end < 0) {
      if (buf.length > lane.maxHeaderSize) this.#handOver();
      else this.#arriving();
      return false;
    }
    const head = end + 4 <= lane.maxHeaderSize && lane.server.listening ? parseRequestHead(buf, end) : undefined;
    const target = head !== undefined && head.contentLength <= lane.maxBody ? inferTarget(head.target) : undefined;
    if (target === undefined || !ordinaryHeaders(head!.headers, lane.o.restrictions, true)) {
      this.#handOver();
      return false;
    }
    const start = end + 4;
    const length = head!.contentLength;
    const body = bodyBuffer(head!.headers, length);
    const have = Math.min(buf.length - start, length);
    body.set(buf.subarray(start, start + have));
    this.#buf = buf.length > start + length ? buf.subarray(start + length) : undefined;
    if (have < length) {
      this.#incoming = { head: head!, target, body, received: have };
      this.#arriving();
      return false;
    }
    this.#serve(head!, target, body);
    return true;
  }

  /** A request is arriving (its bytes in part): its head and request timeouts run from now if not already. */
  #arriving(): void {
    if (this.#since < 0) this.#since = performance.now();
  }

  #serve(head: RequestHead, target: InferTarget, body: Buffer): void {
    const lane = this.lane;
    const o = lane.o;
    this.#busy = true;
    this.#since = -1;
    lane.served++;
    if (!this.#established) {
      this.#established = true;
      o.guard.established(this.socket);
    }
    const seq = ++this.#seq;
    let call: OpenCall;
    let encoding: ResponseEncoding;
    try {
      const decoded = decodeHttpInfer({ body, headers: head.headers }, o.plane, target.model, target.version, o.sharedMemory);
      encoding = decoded.encoding;
      call = o.edge.open(decoded.request, new RequestHeaders(head.headers));
    } catch (e) {
      this.#answer(errorAnswer(e), undefined, head);
      return;
    }
    const cancel = startOnce(
      target.model, call,
      (r) => this.#answer(inferAnswer(r, encoding, o.sharedMemory), call.traceparent(), head),
      (e) => this.#answer(errorAnswer(e), undefined, head),
      () => Errors.tooManyResponses(target.model),
    );
    // Unless it was answered already (and another request may run now).
    if (this.#seq === seq && this.#busy) this.#cancel = cancel;
  }

  /**
   * The answer to the request `request`: compressed first when the client accepts it and it is
   * large enough (the route's rule, compression.ts; on zlib's threads, the request still counted
   * as running), then written.
   */
  #answer(a: InferAnswer, traceparent: string | undefined, request: RequestHead): void {
    this.#cancel = undefined;
    const accept = request.headers['accept-encoding'];
    const encoding = accept !== undefined && a.length >= this.lane.o.compressThreshold ? pickEncoding(accept) : undefined;
    if (encoding === undefined || this.#gone) {
      this.#write(a, traceparent, request.close, undefined);
      return;
    }
    const whole = a.body instanceof Uint8Array ? a.body : Buffer.concat(a.body);
    (encoding === 'gzip' ? gzip : deflate)(whole, (err, out) => {
      if (err) this.#write(errorAnswer(err), undefined, request.close, undefined);
      else this.#write({ ...a, length: out.byteLength, body: out }, traceparent, request.close, encoding);
    });
  }

  #write(a: InferAnswer, traceparent: string | undefined, clientClose: boolean, encoding: string | undefined): void {
    this.#busy = false;
    if (this.#gone) return;
    const socket = this.socket;
    const close = clientClose || this.lane.o.plane.draining() || !this.lane.server.listening;
    let head = `HTTP/1.1 ${a.status} ${STATUS_CODES[a.status] ?? ''}\r\n`;
    if (traceparent !== undefined) head += `traceparent: ${traceparent}\r\n`;
    if (a.headerLength !== undefined) head += `inference-header-content-length: ${a.headerLength}\r\n`;
    head += `content-type: ${a.contentType}\r\ncontent-length: ${a.length}\r\n`;
    if (encoding !== undefined) head += `content-encoding: ${encoding}\r\nvary: Accept-Encoding\r\n`;
    head += `Date: ${httpDate()}\r\n`;
    head += close ? 'Connection: close\r\n\r\n' : `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(this.lane.server.keepAliveTimeout / 1000)}\r\n\r\n`;
    const body = a.body;
    if (body instanceof Uint8Array && a.length < ONE_WRITE_MAX) {
      const out = Buffer.allocUnsafe(head.length + a.length);
      out.write(head, 0, 'latin1');
      out.set(body, head.length);
      socket.write(out);
    } else {
      socket.cork();
      socket.write(head, 'latin1');
      if (body instanceof Uint8Array) socket.write(body);
      else for (const c of body) socket.write(c);
      socket.uncork();
    }
    if (close) {
      // Closed once the answer is out, whether or not the client ends its side.
      this.#gone = true;
      socket.end(() => socket.destroy());
      return;
    }
    if (socket.isPaused()) socket.resume();
    if (socket.writableNeedDrain) socket.once('drain', () => this.#next());
    else this.#next();
  }

  /** The 408 of a request that did not arrive in time; the connection then closes, as node's does. */
  #refuse(error: TributaryError): void {
    this.#gone = true;
    this.socket.write(rawErrorResponse(error));
    this.socket.destroy();
  }

  /** Node's HTTP server serves this connection from here on, starting with the bytes not consumed. */
  #handOver(): void {
    const socket = this.socket;
    const rest = this.#buf;
    this.#buf = undefined;
    this.#gone = true;
    socket.removeListener('data', this.#onData);
    socket.removeListener('end', this.#onEnd);
    socket.removeListener('error', this.#onError);
    socket.removeListener('close', this.#onClose);
    this.lane.forget(this);
    this.lane.handedOver++;
    socket.pause();
    for (const l of this.lane.nodeListeners) l.call(this.lane.server, socket);
    // node's parser reads the socket from here on; what was read before reaches it as a 'data' event.
    if (rest !== undefined) socket.emit('data', rest);
  }
}
