/**
 * The shapes that cross the isolate boundary (both sides import these types). Everything here is
 * structured-clone friendly: isolated-vm copies typed arrays with one memcpy, so a tensor crosses as
 * one buffer. BYTES tensors travel packed (4-byte little-endian length + bytes per element, the wire
 * format of the binary tensor extension) so a tensor of many strings is still one buffer.
 */
export interface WireTensor {
  name: string;
  datatype: string;
  shape: number[];
  /** Numeric: a typed array covering its whole buffer. BYTES: the packed Uint8Array. */
  data: ArrayBufferView;
}

export interface WireError {
  message: string;
  name?: string;
  stack?: string;
  kind?: string;
  code?: string;
}

export interface WireResponse {
  outputs: WireTensor[];
  parameters?: Record<string, unknown>;
  error?: WireError;
}

export interface WireRequest {
  id: string;
  inputs: WireTensor[];
  parameters: Record<string, unknown>;
  outputs: string[];
  correlationId?: bigint | string;
}

export interface WireChildRequest {
  model: string;
  version?: string;
  inputs: WireTensor[];
  outputs?: string[];
  parameters?: Record<string, unknown>;
  correlationId?: bigint | string;
  sequenceStart?: boolean;
  sequenceEnd?: boolean;
  timeout?: number;
  priority?: number;
  /** Index of the parent request in the calling batch; -1 = the whole batch. */
  parent: number;
}

export interface WireInitArgs {
  config: Record<string, unknown>;
  modelName: string;
  modelVersion: string;
  instanceIndex: number;
  files: Record<string, Uint8Array>;
  decoupled: boolean;
}

/** Child-call notifications the host delivers into the isolate. */
export const DELIVER_RESPONSE = 0;
export const DELIVER_ERROR = 1;
export const DELIVER_COMPLETE = 2;

/** One queued decoupled response: [callId, index, response, final]. */
export type QueuedSend = [number, number, WireResponse | null, boolean];

/**
 * What sendMany answers about a request whose responses it just took, as [callId, index, state]
 * triples (null when every request can take more): its client is not taking them yet, or it is gone.
 */
export const SLOT_PAUSED = 1;
export const SLOT_CLOSED = 2;

/**
 * Custom metric updates travel as one flat number array per flush (metric-family.ts):
 * [METRIC_ADD, series, delta], [METRIC_SET, series, value] and
 * [METRIC_OBSERVE, series, sum, count, n, perBucket_0 .. perBucket_n-1].
 */
export const METRIC_ADD = 0;
export const METRIC_SET = 1;
export const METRIC_OBSERVE = 2;

/** Model control operations (model-control.ts); answered through deliver like a child call. */
export const CONTROL_LOAD = 0;
export const CONTROL_UNLOAD = 1;
export const CONTROL_READY = 2;

/**
 * Functions the host installs as `globalThis.__trb_host` before the bundle runs (ivm Callbacks,
 * arguments copied; synchronous except infer and cancel, which return at once), and the shared
 * buffer of the fast lane (scratch.ts). A message argument may be `IN_SCRATCH` (-1): the message
 * is in that buffer.
 */
export interface HostChannel {
  scratch: SharedArrayBuffer;
  /** A call finished: one response (or error) per request; or `error` fails the whole call. */
  done(callId: number, responses: WireResponse[] | null, error: WireError | null): void;
  /**
   * Decoupled responses, in order: each one of request `index`; `final` closes it (send-queue.ts
   * queues them). Answers the requests that are paused or closed (SLOT_PAUSED, SLOT_CLOSED).
   */
  sendMany(sends: QueuedSend[]): number[] | null;
  /** Start children: [callId, childId, request] each (fire-and-forget; failures come back through deliver). */
  infer(starts: [number, number, WireChildRequest][]): void;
  /** The same, synchronous: used while the entry runs on the host's main thread, where it costs no hop. */
  inferNow(starts: [number, number, WireChildRequest][]): void;
  cancel(childId: number): void;
  isCancelled(callId: number, index: number): boolean;
  log(level: number, message: string): void;
  /** Register a metric family: its id, or why not (synchronous, so the script throws where it declares it). */
  metricFamily(name: string, description: string, kind: string): number | WireError;
  /** Register a metric (a label set) of a family: its id, or why not. */
  metric(familyId: number, labels: Record<string, string>, buckets: number[] | null): number | WireError;
  /**
   * Metric updates (fire-and-forget: a script updating in a loop never waits on the host), made
   * while call `callId` ran.
   */
  metrics(updates: number[], callId: number): void;
  /** The same, synchronous: used while the entry runs on the host's main thread (the host holds them until it returns). */
  metricsNow(updates: number[], callId: number): void;
  /** Start a model control operation (fire-and-forget); its outcome comes back through deliver as child `childId`'s. */
  control(callId: number, childId: number, op: number, name: string, arg: unknown): void;
}
