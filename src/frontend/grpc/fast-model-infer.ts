/**
 * Unary ModelInfer served on the HTTP/2 stream itself, without grpc-js's per-call machinery
 * (its intercepting call, the listener chain of interceptors, per-call metadata objects, status
 * and trailer handling built for every kind of call). The answer is the same function grpc-js's
 * handler calls (model-infer.ts: decode, edge, encode, the one status table); only the gRPC
 * framing around it is written here: one length-prefixed message in, response headers, one
 * message and the grpc-status trailers out, or a trailers-only error. Measured with
 * `npm run bench edge`: docs/PERFORMANCE.md, "Cost per request at the edges".
 *
 * grpc-js keeps every other call and everything unusual about this one, decided from the
 * headers: another method, a compressed message (grpc-js enforces the size bound on the
 * decompressed bytes), a content type other than gRPC's, a restricted inference category, and
 * replicas relaying sequences (then the path is not installed at all).
 */
import type { Http2Server, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { Metadata, status as GrpcStatus, type Deadline, type ServiceError } from '@grpc/grpc-js';
import { encodeInferResponseFrame, type ModelInferResponseMsg } from '../../protocol/grpc/index.js';
import type { CallerHeaders } from '../../dataplane/index.js';
import { boundedInferDeserializer } from './bounded-infer-deserializer.js';
import type { UnaryInferCall } from './model-infer.js';

const PATH = '/inference.GRPCInferenceService/ModelInfer';
/** The 5-byte prefix of a gRPC message: a compressed flag and a big-endian length. */
const PREFIX = 5;
// grpc-js's own words for a unary call with no whole message or a second one (its text names every method so).
const NO_MESSAGE = `Received no request message for server streaming method ${PATH}`;
const SECOND_MESSAGE = `Received a second request message for server streaming method ${PATH}`;
const TIMEOUT = /^(\d{1,8})([HMSmun])$/;
const UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 };

type Answer = (call: UnaryInferCall, headers: CallerHeaders, callback: (err: Partial<ServiceError> | null, value?: ModelInferResponseMsg | null) => void) => void;
type StreamListener = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number) => void;

/** A call's headers as the data plane reads a caller's: plain values directly, all of them (binary ones decoded) as grpc-js would. */
class StreamHeaders implements CallerHeaders {
  readonly #headers: IncomingHttpHeaders;
  #entries: [string, unknown][] | undefined;

  constructor(headers: IncomingHttpHeaders) {
    this.#headers = headers;
  }

  get(name: string): string | undefined {
    if (name.startsWith(':') || name.endsWith('-bin')) return undefined;
    const v = this.#headers[name];
    return typeof v === 'string' ? v : undefined;
  }

  entries(): Iterable<readonly [string, unknown]> {
    return (this.#entries ??= Object.entries(Metadata.fromHttp2Headers(this.#headers).toJSON()));
  }
}

/** `grpc-timeout` in ms, undefined without one. */
function timeoutOf(headers: IncomingHttpHeaders): number | undefined {
  const m = TIMEOUT.exec(String(headers['grpc-timeout'] ?? ''));
  return m ? Math.trunc(Number(m[1]) * UNIT_MS[m[2]!]!) : undefined;
}

/**
 * grpc-message, percent-encoded as grpc-js encodes it (encodeURI), so both paths send the same
 * bytes; text encodeURI refuses (a lone surrogate) is encoded byte by byte as the gRPC HTTP/2
 * protocol says: outside printable ASCII, and '%' itself.
 */
function encodeMessage(text: string): string {
  try {
    return encodeURI(text);
  } catch {
    // fall through
  }
  let out = '';
  for (const b of Buffer.from(text)) out += b >= 0x20 && b <= 0x7e && b !== 0x25 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

function ordinary(headers: IncomingHttpHeaders): boolean {
  if (headers[':path'] !== PATH || headers[':method'] !== 'POST') return false;
  const type = headers['content-type'];
  if (typeof type !== 'string' || !(type === 'application/grpc' || type.startsWith('application/grpc+proto') || type.startsWith('application/grpc;'))) return false;
  const encoding = headers['grpc-encoding'];
  if (encoding !== undefined && encoding !== 'identity') return false;
  // A malformed timeout is grpc-js's to refuse, in its words.
  const timeout = headers['grpc-timeout'];
  return timeout === undefined || TIMEOUT.test(String(timeout));
}

/**
 * Put the direct ModelInfer in front of `http2Server`'s 'stream' listeners (grpc-js's). `maxBytes`
 * is the request message bound grpc-js enforces (grpc.max_receive_message_length).
 */
export function serveModelInferDirectly(http2Server: Http2Server, answer: Answer, maxBytes: number): { readonly calls: number } {
  const listeners = http2Server.listeners('stream') as StreamListener[];
  http2Server.removeAllListeners('stream');
  const decode = boundedInferDeserializer();
  const served = { calls: 0 };
  http2Server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number) => {
    if (!ordinary(headers)) {
      for (const l of listeners) l.call(http2Server, stream, headers, flags);
      return;
    }
    served.calls++;
    serveOne(stream, headers, answer, decode, maxBytes);
  });
  return served;
}

/** Errors come with a 'close' that cancels the call; nothing can be sent on a broken stream. */
function ignoreError(): void {}

/** A 'wantTrailers' listener (`this` is the stream): the OK status after the one message. */
function sendOk(this: ServerHttp2Stream): void {
  this.sendTrailers({ 'grpc-status': '0', 'grpc-message': 'OK' });
}

function serveOne(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, answer: Answer, decode: ReturnType<typeof boundedInferDeserializer>, maxBytes: number): void {
  // Listeners shared by every call where they need nothing of it: a closure less for each.
  stream.on('error', ignoreError);
  let ended = false;
  const cancelled: (() => void)[] = [];
  // As grpc-js: past the client's timeout the call ends DEADLINE_EXCEEDED, and the request is cancelled.
  const timeoutMs = timeoutOf(headers);
  const deadline: Deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
    fail(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded');
    for (const f of cancelled) f();
  }, timeoutMs);
  const fail = (code: number, details: string, trailers?: Metadata) => {
    if (ended || stream.destroyed) return;
    ended = true;
    clearTimeout(timer);
    stream.respond({
      ':status': 200, 'content-type': 'application/grpc+proto', ...trailers?.toHttp2Headers(),
      'grpc-status': String(code), 'grpc-message': encodeMessage(details),
    }, { endStream: true });
  };
  const chunks: Buffer[] = [];
  let received = 0;
  let declared = -1;
  stream.on('data', (chunk: Buffer) => {
    if (ended) return;
    chunks.push(chunk);
    received += chunk.length;
    if (declared < 0 && received >= PREFIX) {
      const head = chunks.length === 1 ? chunk : Buffer.concat(chunks);
      if (head[0] !== 0) return fail(GrpcStatus.INTERNAL, 'a compressed message without grpc-encoding');
      declared = head.readUInt32BE(1);
      if (declared > maxBytes) return fail(GrpcStatus.RESOURCE_EXHAUSTED, `Received message larger than max (${declared} vs ${maxBytes})`);
    }
    if (declared >= 0 && received > PREFIX + declared) fail(GrpcStatus.UNIMPLEMENTED, SECOND_MESSAGE);
  });
  stream.on('end', () => {
    if (ended) return;
    if (declared < 0 || received !== PREFIX + declared) return fail(GrpcStatus.UNIMPLEMENTED, NO_MESSAGE);
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
    let responseHeaders: Metadata | undefined;
    const call: UnaryInferCall = {
      request: decode(body.subarray(PREFIX)),
      getDeadline: () => deadline,
      sendMetadata: (md) => { responseHeaders = md; },
      on: (_event, listener) => cancelled.push(listener),
    };
    stream.once('close', () => {
      clearTimeout(timer);
      if (!ended) {
        ended = true;
        for (const f of cancelled) f();
      }
    });
    answer(call, new StreamHeaders(headers), (err, value) => {
      if (ended || stream.destroyed) return;
      if (err) return fail(err.code ?? GrpcStatus.UNKNOWN, err.details ?? err.message ?? '', err.metadata);
      let frame: Buffer;
      try {
        frame = encodeInferResponseFrame(value!);
      } catch (e) {
        return fail(GrpcStatus.INTERNAL, (e as Error).message);
      }
      ended = true;
      if (timer) clearTimeout(timer);
      const head = { ':status': 200, 'content-type': 'application/grpc+proto', 'grpc-accept-encoding': 'identity,deflate,gzip' };
      stream.respond(responseHeaders ? { ...head, ...responseHeaders.toHttp2Headers() } : head, { waitForTrailers: true });
      stream.once('wantTrailers', sendOk);
      stream.end(frame);
    });
  });
}
