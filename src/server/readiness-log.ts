import type { Logger } from '../logger.js';

/**
 * Logs /v2/health/ready's answer when it changes, not on every probe: an orchestrator probes every
 * few seconds, and one line per probe would bury the reason. A not-ready answer names what holds
 * it back (asked for only while not ready); a new reason while still not ready is a change too.
 */
export function createReadinessLog(log: Logger): (ready: boolean, reasons: () => readonly string[]) => void {
  let last: string | undefined;
  return (ready, reasons) => {
    const why = ready ? '' : reasons().join(', ');
    const key = `${ready}:${why}`;
    if (key === last) return;
    const first = last === undefined;
    last = key;
    if (!ready) log.warn(`not ready: ${why || 'no reason recorded'}`);
    else if (!first) log.info('ready: every model the server loads is ready');
  };
}
