import type { Http2Server, ServerHttp2Session } from 'node:http2';
import type { Server as GrpcServer } from '@grpc/grpc-js';
import { Errors } from '../../errors.js';
import type { ConnectionGuard } from '../transport/index.js';

/**
 * The HTTP/2 server grpc-js made for the connection injector just created. grpc-js does not expose
 * it, and its sessions are the one place that says when a client's preface and SETTINGS arrived
 * (the socket itself is read by node's HTTP/2 core). A grpc-js without this map fails at start,
 * not with every connection timing out.
 */
export function lastHttp2Server(grpcServer: GrpcServer): Http2Server {
  const servers: unknown = Reflect.get(grpcServer, 'http2Servers');
  const last = servers instanceof Map ? [...servers.keys()].at(-1) : undefined;
  if (typeof (last as Http2Server | undefined)?.on !== 'function') {
    throw Errors.internal('the gRPC server\'s HTTP/2 sessions cannot be watched (grpc-js no longer keeps its HTTP/2 servers in `http2Servers`); connection handshake and idle timeouts need them');
  }
  return last as Http2Server;
}

/**
 * Tell `guard` when each connection of grpc-js's newest connection injector is established (the
 * client's SETTINGS, which follow its preface, arrived) and how to see and end its idleness: busy
 * while a call (stream) is open; closed with GOAWAY, which lets a call that raced it finish.
 */
export function guardSessions(grpcServer: GrpcServer, guard: ConnectionGuard): void {
  lastHttp2Server(grpcServer).on('session', (session: ServerHttp2Session) => {
    const peer = { remoteAddress: session.socket?.remoteAddress, remotePort: session.socket?.remotePort };
    let calls = 0;
    session.on('stream', (stream) => {
      calls++;
      stream.once('close', () => { calls--; });
    });
    session.once('remoteSettings', () => guard.established(peer, { busy: () => calls > 0, close: () => session.close() }));
  });
}
