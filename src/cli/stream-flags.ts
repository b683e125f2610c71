import { STREAM_DEFAULTS, StreamBudget } from '../frontend/stream/index.js';
import { intFlag } from './flags.js';

/**
 * Producers pause at an eighth of the bound; the rest must hold what a script sends before it
 * learns it should pause (one batch, about 128 KiB counted with the bookkeeping).
 */
const MIN_STREAM_BYTES = 256 * 1024;

/**
 * --stream-buffer-bytes and --stream-buffer-total-bytes: the one account of streamed responses
 * waiting for clients, shared by the HTTP and gRPC front ends and read by the metrics.
 */
export function streamBudgetFromFlags(f: Record<string, unknown>): StreamBudget {
  const streamBytes = intFlag('stream-buffer-bytes', f['stream-buffer-bytes'], STREAM_DEFAULTS.streamBytes, MIN_STREAM_BYTES);
  // The total can never be less than what one stream may hold.
  const totalBytes = intFlag('stream-buffer-total-bytes', f['stream-buffer-total-bytes'], Math.max(STREAM_DEFAULTS.totalBytes, streamBytes), streamBytes);
  return new StreamBudget({ streamBytes, totalBytes });
}
