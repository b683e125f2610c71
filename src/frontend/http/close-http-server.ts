import type { FastifyInstance } from 'fastify';

/** How often idle kept-alive connections are looked for while closing. */
const SWEEP_MS = 50;

/**
 * Stop listening and close every connection, without cutting a response short: idle kept-alive
 * connections close now and as each later goes idle (node's server.close() leaves a connection
 * that goes idle after it open for up to the 65 s keep-alive), connections still busy after
 * `graceMs` are closed then. A request that arrives meanwhile is answered 503 with
 * `Connection: close` (fastify's return503OnClosing). `graceMs` 0 closes every connection at once.
 */
export async function closeHttpServer(app: FastifyInstance, graceMs: number): Promise<void> {
  const server = app.server;
  const closing = app.close();
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
  let force: NodeJS.Timeout | undefined;
  const forceAll = () => {
    server.closeAllConnections();
    force = setInterval(() => server.closeAllConnections(), SWEEP_MS);
  };
  const grace = setTimeout(forceAll, Math.max(0, graceMs));
  try {
    await closing;
  } finally {
    clearInterval(sweep);
    clearTimeout(grace);
    clearInterval(force);
  }
}
