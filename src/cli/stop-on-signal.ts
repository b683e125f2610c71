import type { Logger } from '../logger.js';
import type { LocalServer } from '../server/index.js';

/** Longest --exit-timeout-secs: a day (node's timers stop at 2^31 ms). */
export const MAX_EXIT_TIMEOUT_SECS = 86_400;
/**
 * After the drain, what the front ends get to write their last responses (the cancelled requests'
 * errors among them) and close their connections, before any still open is closed.
 */
export const FLUSH_GRACE_MS = 2000;

/**
 * Resolves at the first SIGINT or SIGTERM. Later ones are ignored, as tritonserver's handler does
 * (a stop already under way is not cut short: --exit-timeout-secs bounds it, SIGKILL ends it now);
 * each is logged so an operator sees why the process is still there.
 */
export function stopSignal(log: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let first: NodeJS.Signals | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      if (first === undefined) {
        first = signal;
        resolve(signal);
        return;
      }
      log.warn(`${signal} ignored: the server is already stopping (it waits at most --exit-timeout-secs for in-flight requests; SIGKILL exits at once)`);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/**
 * tritonserver's stop: readiness false and new inference refused at once, then up to `secs` for
 * the requests in flight (HTTP, gRPC, streams, pipelines), then the rest are answered with
 * TRB_DRAIN_CANCELLED. Logs the counts.
 */
export async function drainServer(server: LocalServer, secs: number, signal: string, log: Logger): Promise<void> {
  log.info(`${signal} received: stopping; readiness is now false and new inference requests are refused (UNAVAILABLE); waiting up to ${secs} s for in-flight requests (--exit-timeout-secs)`);
  const r = await server.drain(secs * 1000);
  const cancelled = r.cancelled > 0 ? `, ${r.cancelled} cancelled after ${secs} s (--exit-timeout-secs)` : ', 0 cancelled';
  const line = `drained: ${r.inFlight} inference request(s) in flight at ${signal}; ${r.finished} finished${cancelled}`;
  if (r.cancelled > 0) log.warn(line);
  else log.info(line);
}
