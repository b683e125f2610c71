import type { Server as NetServer } from 'node:net';
import type { Logger } from '../../logger.js';

/** A refused connection is worth a warning, but not one per refused socket. */
const DROP_WARNING_INTERVAL_MS = 10_000;

/**
 * Bound the open connections of a listening server (HTTP's, or the TCP server that hands sockets
 * to grpc-js): node closes a connection past the bound as it is accepted, before reading from it
 * (for TLS, before spending a handshake on it). Refusals are logged at most every 10 s, naming the
 * flag that raises the bound. `maxConnections <= 0` leaves the server unbounded.
 */
export function boundConnections(server: NetServer, maxConnections: number, log: Logger, what: string, flag: string): void {
  if (maxConnections <= 0) return;
  server.maxConnections = maxConnections;
  let dropped = 0;
  let lastWarning = -Infinity;
  server.on('drop', () => {
    dropped++;
    if (performance.now() - lastWarning < DROP_WARNING_INTERVAL_MS) return;
    lastWarning = performance.now();
    log.warn(`${what}: refused ${dropped} connection(s) so far: ${maxConnections} are open (${flag})`);
  });
}
