/**
 * Bounded streams: the account of streamed responses (gRPC ModelStreamInfer, SSE) waiting for their
 * clients, per stream and server-wide, which is also each stream's demand on its producers.
 */
export { MESSAGE_OVERHEAD, STREAM_DEFAULTS, StreamBudget } from './stream-budget.js';
export { StreamBuffer } from './stream-buffer.js';
