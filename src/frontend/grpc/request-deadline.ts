import { performance } from 'node:perf_hooks';
import type { Deadline } from '@grpc/grpc-js';

/**
 * The call's gRPC deadline on the server clock (performance.now() ms), so queues and pipeline
 * steps drop work the client no longer waits for. Undefined when the client set none.
 */
export function requestDeadline(call: { getDeadline(): Deadline }): number | undefined {
  const d = call.getDeadline();
  const at = d instanceof Date ? d.getTime() : d;
  if (!Number.isFinite(at)) return undefined;
  return performance.now() + (at - Date.now());
}
