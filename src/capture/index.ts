/**
 * Data capture: the per-request tap the edge puts on sampled (and failing) requests, the bounded
 * queue the dataflow and the BLS host record into, its sinks (JSON Lines files, CloudEvents over
 * HTTP, a Redis stream), and reading the records back for `tributary inspect` and `replay`.
 */
export { parseCaptureConfig, CAPTURE_DEFAULTS } from './capture-settings.js';
export { createCapture } from './create-capture.js';
export type { Capture, CaptureSink } from './create-capture.js';
export type { CapturedRecord } from './captured-record.js';
export { REQUEST_EVENT, RESPONSE_EVENT } from './cloud-events-sink.js';
export { readCaptureDir, readCaptureStream } from './read-captures.js';
export type { RecordLine } from './read-captures.js';
export { groupRequests, failingRecord } from './captured-requests.js';
export type { CapturedRequest, RecordNode } from './captured-requests.js';
export { tensorOfRecord, sha256Of } from './record-tensor.js';
export type { RecordTensor } from './record-tensor.js';
