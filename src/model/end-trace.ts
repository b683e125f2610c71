import type { ExecuteTimings } from '../backend/index.js';
import type { RequestTrace } from '../inference/index.js';

/**
 * Triton's compute timestamps, from what the statistics already measure: the execution's wall
 * span, with the input and output phases at its two ends (clamped so that the order always holds,
 * whatever a backend reports), then REQUEST_END, and the trace goes to its file. A request that
 * never reached an instance (refused, cancelled in the queue) has no compute timestamps.
 */
export function endTrace(trace: RequestTrace, startedAt: number | undefined, computeEndAt: number | undefined, timings: ExecuteTimings | undefined, end: number): void {
  if (startedAt !== undefined) {
    const computeEnd = Math.max(startedAt, Math.min(computeEndAt ?? end, end));
    const inputEnd = Math.min(startedAt + (timings?.computeInputNs ?? 0) / 1e6, computeEnd);
    const outputStart = Math.max(inputEnd, computeEnd - (timings?.computeOutputNs ?? 0) / 1e6);
    trace.stamp('COMPUTE_START', startedAt);
    trace.stamp('COMPUTE_INPUT_END', inputEnd);
    trace.stamp('COMPUTE_OUTPUT_START', outputStart);
    trace.stamp('COMPUTE_END', computeEnd);
  }
  trace.stamp('REQUEST_END', end);
  trace.end();
}
