/**
 * What one client may cost the HTTP front end: body size, time to send a request, connections.
 * Defaults: Triton's 64 MiB for --http-max-input-size; node's own 60 s for the headers and 300 s
 * for the whole request (fastify turns the latter off, which let a trickled body hold a socket
 * forever); 1024 connections (the listen backlog Triton uses), of which at most 256 may be waiting
 * for their first request (gRPC's default too).
 */

export interface HttpLimits {
  /** Largest request body, as sent and after decompression (--http-max-input-size); 400 past it, as in Triton. */
  maxInputSize: number;
  /** Time from connecting, or from a request's first byte, to the end of its headers; 0 = none. */
  headerTimeoutMs: number;
  /** Time from the start of a request to the end of its body; 0 = none. */
  requestTimeoutMs: number;
  /**
   * Open connections at most. Past it a newcomer closes the oldest connection that has not sent a
   * request yet, or, when every one has, is closed as it arrives, before a byte is read. 0 = none.
   */
  maxConnections: number;
  /**
   * Connections that have not completed TLS and the headers of a first request, at most; one more
   * closes the oldest of them, so that silent sockets cannot hold the slots of real clients.
   */
  maxPendingConnections: number;
}

export const HTTP_DEFAULTS: Readonly<HttpLimits> = Object.freeze({
  maxInputSize: 64 * 1024 * 1024,
  headerTimeoutMs: 60_000,
  requestTimeoutMs: 300_000,
  maxConnections: 1024,
  maxPendingConnections: 256,
});

/** `options` over the defaults; a header timeout longer than the request timeout is cut to it (node requires it). */
export function resolveLimits(options: Partial<HttpLimits>): HttpLimits {
  const limits = { ...HTTP_DEFAULTS, ...stripUndefined(options) };
  if (limits.requestTimeoutMs > 0 && (limits.headerTimeoutMs === 0 || limits.headerTimeoutMs > limits.requestTimeoutMs)) {
    limits.headerTimeoutMs = limits.requestTimeoutMs;
  }
  return limits;
}

function stripUndefined(o: Partial<HttpLimits>): Partial<HttpLimits> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/**
 * node's http.Server options for the limits. node checks its timeouts only every
 * `connectionsCheckingInterval` (30 s by default, so a 1 s timeout could take 31 s): check at a
 * quarter of the shorter timeout, at most every 30 s and at least every 50 ms.
 */
export function nodeServerOptions(limits: HttpLimits) {
  const shortest = Math.min(...[limits.headerTimeoutMs, limits.requestTimeoutMs].filter((t) => t > 0), 120_000);
  return {
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(shortest / 4))),
    // Triton does not demand a Host header either; node's refusal would be a bodiless 400.
    requireHostHeader: false,
  };
}

