import type { Server as NetServer, Socket } from 'node:net';
import type { Logger } from '../../logger.js';

/** A warning per cause is worth it, but not one per connection in a flood. */
const WARNING_INTERVAL_MS = 10_000;
/** Deadlines are checked at a quarter of the shortest timeout, but at least this often... */
const MAX_SWEEP_MS = 1000;
/** ...and no more often than this. */
const MIN_SWEEP_MS = 25;

/**
 * A connection's life on one listening server. "Pending" is a connection that has not yet shown it
 * is a client of the protocol: for gRPC, TLS (when on) and the HTTP/2 preface with the client's
 * SETTINGS; for HTTP, TLS and the headers of a first request. Every time and count here is a flag.
 */
export interface ConnectionLimits {
  /** Open connections at most, pending ones included; 0 = unbounded. */
  maxConnections: number;
  /**
   * Pending connections at most; when one more arrives the oldest pending one is closed, so that
   * sockets that never speak hold at most this many slots and a real client (whose handshake takes
   * a round trip or two) always gets in. Also, with every slot taken, a newcomer closes the oldest
   * pending connection; only when all are established is it refused.
   */
  maxPending: number;
  /** A connection still pending after this is closed; 0 = never (the front end bounds it otherwise). */
  handshakeTimeoutMs: number;
  /**
   * An established connection with no call in progress that has sent nothing for this long is
   * closed gracefully (`IdleHooks.close`), and destroyed if it is still open `handshakeTimeoutMs`
   * (at least a second) later; 0 = never. Only for connections established with `IdleHooks`.
   */
  idleTimeoutMs: number;
}

/** Names for the warnings: the front end, and the flag behind each limit. */
export interface GuardNames {
  what: string;
  maxConnections: string;
  maxPending: string;
  handshakeTimeout: string;
  idleTimeout?: string;
}

/** How the guard sees whether an established connection is busy, and closes it gracefully. */
export interface IdleHooks {
  /** A call (stream, request) is in progress: the connection is not idle whatever its bytes say. */
  busy(): boolean;
  /** Close without cutting a call short (HTTP/2: GOAWAY, then close once the calls are done). */
  close(): void;
}

/** A connection as the front end sees it (a TLS socket, an HTTP/2 session's socket): its peer's address. */
interface Peer {
  remoteAddress?: string | undefined;
  remotePort?: number | undefined;
}

export interface ConnectionGuard {
  /** The connection from `peer` completed its handshake: it no longer counts as pending. */
  established(peer: Peer, idle?: IdleHooks): void;
  /** Connections open, and those of them still pending. */
  counts(): { open: number; pending: number };
  /** Destroy every connection still open (the last step of a forced close). */
  destroyAll(): void;
  /** Resolves once no connection is open (at once if none is). */
  allClosed(): Promise<void>;
}

interface Tracked {
  socket: Socket;
  since: number;
  idle?: IdleHooks;
  /** bytesRead when last seen, and when it last changed (or a call last ended). */
  bytes: number;
  activeAt: number;
  closingAt?: number;
}

const keyOf = (p: Peer) => `${p.remoteAddress ?? ''}|${p.remotePort ?? ''}`;

/**
 * Guard a listening server's connections (HTTP's, or the TCP server that hands sockets to grpc-js):
 * the total bound, the smaller bound on pending connections (oldest closed first), the handshake
 * timeout and the idle timeout. Sockets are tracked from their raw TCP 'connection' event, ahead of
 * the server's own listeners, so a refused one is closed before any TLS or protocol work. A flood
 * of silent sockets therefore costs at most `maxPending` slots for at most `handshakeTimeoutMs`.
 */
export function guardConnections(server: NetServer, limits: ConnectionLimits, log: Logger, names: GuardNames): ConnectionGuard {
  const open = new Map<string, Tracked>();
  // Insertion order is arrival order: the first entry is the oldest pending connection.
  const pending = new Map<string, Tracked>();
  const maxPending = Math.max(1, limits.maxConnections > 0 ? Math.min(limits.maxPending, limits.maxConnections) : limits.maxPending);
  const closeGraceMs = Math.max(1000, limits.handshakeTimeoutMs);
  const warn = throttledWarnings(log, names.what);
  const timeouts = [limits.handshakeTimeoutMs, limits.idleTimeoutMs].filter((t) => t > 0);
  const sweepMs = Math.max(MIN_SWEEP_MS, Math.min(MAX_SWEEP_MS, Math.floor(Math.min(...timeouts, 4 * MAX_SWEEP_MS) / 4)));
  let sweeper: NodeJS.Timeout | undefined;
  let whenEmpty: (() => void)[] = [];
  const maybeEmpty = () => {
    if (open.size > 0 || whenEmpty.length === 0) return;
    const waiting = whenEmpty;
    whenEmpty = [];
    for (const w of waiting) w();
  };

  const drop = (key: string, t: Tracked) => {
    open.delete(key);
    pending.delete(key);
    t.socket.destroy();
  };

  const evictOldestPending = (why: 'room' | 'pending') => {
    const [key, oldest] = pending.entries().next().value ?? [];
    if (key === undefined || !oldest) return false;
    drop(key, oldest);
    warn(why, (n) => `closed ${n} connection(s) so far that had not completed their handshake, the oldest first, to make room: ${why === 'room'
      ? `${limits.maxConnections} connections were open (${names.maxConnections})`
      : `${maxPending} were waiting for theirs (${names.maxPending})`}`);
    return true;
  };

  const sweep = () => {
    const now = performance.now();
    if (limits.handshakeTimeoutMs > 0) {
      for (const [key, t] of pending) {
        if (now - t.since < limits.handshakeTimeoutMs) break;
        drop(key, t);
        warn('handshake', (n) => `closed ${n} connection(s) so far that did not complete their handshake within ${limits.handshakeTimeoutMs} ms (${names.handshakeTimeout})`);
      }
    }
    if (limits.idleTimeoutMs > 0) {
      for (const [key, t] of open) if (t.idle) checkIdle(key, t, now);
    }
    if (open.size === 0) stopSweeping();
  };

  const checkIdle = (key: string, t: Tracked, now: number) => {
    const idle = t.idle!;
    if (idle.busy()) {
      t.activeAt = now;
      return;
    }
    if (t.closingAt !== undefined) {
      if (now - t.closingAt >= closeGraceMs) drop(key, t);
      return;
    }
    if (t.socket.bytesRead !== t.bytes) {
      t.bytes = t.socket.bytesRead;
      t.activeAt = now;
      return;
    }
    if (now - t.activeAt < limits.idleTimeoutMs) return;
    t.closingAt = now;
    idle.close();
  };

  const startSweeping = () => {
    if (sweeper || timeouts.length === 0) return;
    sweeper = setInterval(sweep, sweepMs);
    sweeper.unref();
  };
  const stopSweeping = () => {
    clearInterval(sweeper);
    sweeper = undefined;
  };

  server.prependListener('connection', (socket: Socket) => {
    if (limits.maxConnections > 0 && open.size >= limits.maxConnections && !evictOldestPending('room')) {
      socket.destroy();
      warn('refused', (n) => `refused ${n} connection(s) so far: ${limits.maxConnections} established connections are open (${names.maxConnections})`);
      return;
    }
    const key = keyOf(socket);
    const t: Tracked = { socket, since: performance.now(), bytes: 0, activeAt: 0 };
    open.set(key, t);
    pending.set(key, t);
    socket.once('close', () => {
      if (open.get(key) === t) open.delete(key);
      if (pending.get(key) === t) pending.delete(key);
      maybeEmpty();
    });
    if (pending.size > maxPending) evictOldestPending('pending');
    startSweeping();
  });

  return {
    established(peer, idle) {
      const key = keyOf(peer);
      const t = open.get(key);
      if (!t) return;
      pending.delete(key);
      if (!idle) return;
      t.idle = idle;
      t.bytes = t.socket.bytesRead;
      t.activeAt = performance.now();
    },
    counts: () => ({ open: open.size, pending: pending.size }),
    destroyAll() {
      for (const [key, t] of open) drop(key, t);
      maybeEmpty();
    },
    allClosed: () => new Promise<void>((resolve) => {
      whenEmpty.push(resolve);
      maybeEmpty();
    }),
  };
}

/** One warning per cause at most every 10 s, given the count so far. */
function throttledWarnings(log: Logger, what: string): (cause: string, message: (count: number) => string) => void {
  const state = new Map<string, { count: number; lastAt: number }>();
  return (cause, message) => {
    const s = state.get(cause) ?? { count: 0, lastAt: -Infinity };
    state.set(cause, s);
    s.count++;
    if (performance.now() - s.lastAt < WARNING_INTERVAL_MS) return;
    s.lastAt = performance.now();
    log.warn(`${what}: ${message(s.count)}`);
  };
}
