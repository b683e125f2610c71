import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { toTributaryError } from '../../errors.js';
import { grpcCodeOf } from '../../protocol/status-table.js';
import { GrpcStatus } from './grpc-status.js';
import { parseGrpcTimeout } from './grpc-timeout.js';
import { H2Call } from './h2-call.js';
import { createMessageDeframer } from './message-deframer.js';
import type { Route } from './route-table.js';

export interface Limits { maxReceiveBytes: number; maxSendBytes: number }

interface HandlerError { code?: number; details?: string; message?: string }
type UnaryHandler = (call: H2Call, callback: (err: HandlerError | null, res?: unknown) => void) => void;
type BidiHandler = (call: H2Call) => void;

const noSerialize = (): Buffer => Buffer.alloc(0);

function failWith(call: H2Call, e: unknown): void {
  call.sendStatus(grpcCodeOf(e), toTributaryError(e).message);
}

/**
 * Serve one HTTP/2 stream as a gRPC call: check the request headers, route by `:path`, unframe the
 * request messages and run the route's handler on an H2Call. A unary call starts on its first
 * message (no wait for the client's half-close, which arrives in the same frame or just after).
 */
export function serveRpc(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, routes: ReadonlyMap<string, Route>, limits: Limits): void {
  const contentType = headers['content-type'];
  if (headers[':method'] !== 'POST' || typeof contentType !== 'string' || !contentType.startsWith('application/grpc')) {
    stream.on('error', () => {});
    stream.respond({ ':status': 415, 'content-type': 'text/plain' }, { endStream: false });
    stream.end('this endpoint speaks gRPC: POST with content-type application/grpc\n');
    return;
  }
  const path = headers[':path'] ?? '';
  const route = routes.get(path);
  const timeoutMs = parseGrpcTimeout(headers['grpc-timeout']);
  const deadline = typeof timeoutMs === 'number' ? Date.now() + timeoutMs : Infinity;
  const call = new H2Call(stream, route?.serialize ?? noSerialize, limits.maxSendBytes, deadline);
  stream.on('data', () => {}); // keep the request flowing even when it is refused below
  if (!route || route.kind === 'unsupported') {
    call.sendStatus(GrpcStatus.UNIMPLEMENTED, route
      ? `method ${path} is not implemented over the http2 gRPC front end (only unary and bidirectional-stream methods are)`
      : `unknown method ${path}: this server implements inference.GRPCInferenceService and grpc.health.v1.Health`);
    return;
  }
  if (timeoutMs === null) {
    call.sendStatus(GrpcStatus.OUT_OF_RANGE, `invalid grpc-timeout header '${String(headers['grpc-timeout'])}'`);
    return;
  }

  const unary = route.kind === 'unary';
  let received = 0;
  const onMessage = (payload: Buffer) => {
    if (call.finished) return;
    received++;
    if (unary && received > 1) {
      call.sendStatus(GrpcStatus.UNIMPLEMENTED, `${route.name} is unary but the client sent a second request message`);
      return;
    }
    let msg: unknown;
    try {
      msg = route.deserialize(payload);
    } catch (e) {
      failWith(call, e);
      return;
    }
    if (!unary) {
      call.emit('data', msg);
      return;
    }
    call.request = msg;
    try {
      (route.handler as unknown as UnaryHandler)(call, (err, res) => {
        if (err) call.sendStatus(err.code ?? GrpcStatus.UNKNOWN, err.details ?? err.message ?? '');
        else call.reply(res);
      });
    } catch (e) {
      failWith(call, e);
    }
  };
  const deframer = createMessageDeframer(limits.maxReceiveBytes, {
    message: onMessage,
    reject(reason, length) {
      if (reason === 'compressed') {
        const enc = headers['grpc-encoding'] ?? 'none';
        call.sendStatus(GrpcStatus.UNIMPLEMENTED, `compressed messages are not supported (grpc-encoding '${String(enc)}'); send them uncompressed`);
      } else {
        call.sendStatus(GrpcStatus.RESOURCE_EXHAUSTED, `Received message larger than max (${length} vs. ${limits.maxReceiveBytes})`);
      }
    },
  });

  if (!unary) {
    try {
      (route.handler as unknown as BidiHandler)(call);
    } catch (e) {
      failWith(call, e);
      return;
    }
  }
  stream.on('data', (chunk: Buffer) => { if (!call.finished) deframer.push(chunk); });
  stream.on('end', () => {
    if (call.finished) return;
    if (!deframer.atBoundary()) call.sendStatus(GrpcStatus.INTERNAL, 'the request ended in the middle of a message');
    else if (unary && received === 0) call.sendStatus(GrpcStatus.UNIMPLEMENTED, `${route.name} is unary but the client sent no request message`);
    else if (!unary) call.emit('end');
  });
}
