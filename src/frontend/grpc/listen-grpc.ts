import net from 'node:net';
import type { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';
import { Errors } from '../../errors.js';
import { createLogger } from '../../logger.js';
import { guardConnections, type ConnectionGuard, type ConnectionLimits } from '../transport/index.js';
import { guardSessions } from './guard-sessions.js';

export interface GrpcListenOptions {
  host: string;
  port: number;
  /** Connection bounds and timeouts (src/frontend/transport/guard-connections.ts). */
  limits: ConnectionLimits;
  /** Bind in this process even under node:cluster, instead of sharing the primary's handle. */
  exclusive?: boolean;
  /** The credentials are plain text (no TLS). */
  plainText: boolean;
}

export interface GrpcListener {
  port: number;
  /** Stop accepting connections (open ones are the gRPC server's to close). */
  close(): void;
  /**
   * Resolves once every connection has closed. On Node 24 (not on 20) an HTTP/2 session closed by
   * grpc-js ends its socket and waits for the peer to close its side, so a client that never does
   * (one that stopped reading, say) holds its socket, and the process, open: see destroyConnections.
   */
  connectionsClosed(): Promise<void>;
  /** Destroy the connections still open (the last step of a close whose grace is spent). */
  destroyConnections(): void;
}

const log = createLogger('grpc');
const GUARD_NAMES = Object.freeze({
  what: 'gRPC', maxConnections: '--grpc-max-connections', maxPending: '--grpc-max-pending-connections',
  handshakeTimeout: '--grpc-handshake-timeout-ms', idleTimeout: '--grpc-idle-timeout-ms',
});

/**
 * Listen on our own TCP server and hand each connection to grpc-js (its connection injector), since
 * grpc-js's own listener has no connection bound and no handshake timeout. TLS, HTTP/2 and the
 * calls stay with grpc-js; its sessions tell the guard when a connection is established.
 */
export async function listenGrpc(grpcServer: GrpcServer, credentials: ServerCredentials, options: GrpcListenOptions): Promise<GrpcListener> {
  const injector = grpcServer.createConnectionInjector(credentials);
  // noDelay as node's HTTP servers default to: a short response must not wait behind Nagle's algorithm.
  // The guard's listener runs first: a connection it refused is not handed over.
  const tcp = net.createServer({ noDelay: true }, (socket) => {
    if (socket.destroyed) return;
    if (!options.plainText) return injector.injectConnection(socket);
    // A plain-text client speaks first (its preface): until it does, a socket costs no HTTP/2 session,
    // so a flood of silent ones costs little more than the sockets. What arrived is read from the
    // socket's buffer by node's HTTP/2 session. TLS reads the raw socket itself: handed over at once.
    socket.on('error', () => undefined);
    socket.once('readable', () => { if (!socket.destroyed && socket.readableLength > 0) injector.injectConnection(socket); });
  });
  let guard: ConnectionGuard;
  try {
    guard = guardConnections(tcp, options.limits, log, GUARD_NAMES);
    guardSessions(grpcServer, guard);
  } catch (e) {
    injector.destroy();
    throw e;
  }
  try {
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen({ port: options.port, host: options.host, exclusive: options.exclusive ?? false }, () => {
        tcp.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    injector.destroy();
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw Errors.grpcListenFailed(options.host, options.port, code);
  }
  return {
    port: (tcp.address() as net.AddressInfo).port,
    close: () => tcp.close(),
    connectionsClosed: () => guard.allClosed(),
    destroyConnections: () => guard.destroyAll(),
  };
}
