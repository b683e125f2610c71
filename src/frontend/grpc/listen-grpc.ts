import net from 'node:net';
import type { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';
import { Errors } from '../../errors.js';
import { createLogger } from '../../logger.js';
import { boundConnections } from '../transport/index.js';

export interface GrpcListenOptions {
  host: string;
  port: number;
  /** Open connections beyond this are closed as they arrive. */
  maxConnections: number;
  /** Bind in this process even under node:cluster, instead of sharing the primary's handle. */
  exclusive?: boolean;
}

export interface GrpcListener {
  port: number;
  /** Stop accepting connections (open ones are the gRPC server's to close). */
  close(): void;
}

const log = createLogger('grpc');

/**
 * Listen on our own TCP server and hand each connection to grpc-js (its connection injector), since
 * grpc-js's own listener has no connection bound. TLS, HTTP/2 and the calls stay with grpc-js.
 */
export async function listenGrpc(grpcServer: GrpcServer, credentials: ServerCredentials, options: GrpcListenOptions): Promise<GrpcListener> {
  const injector = grpcServer.createConnectionInjector(credentials);
  // noDelay as node's HTTP servers default to: a short response must not wait behind Nagle's algorithm.
  const tcp = net.createServer({ noDelay: true }, (socket) => injector.injectConnection(socket));
  boundConnections(tcp, options.maxConnections, log, 'gRPC', '--grpc-max-connections');
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
  };
}
