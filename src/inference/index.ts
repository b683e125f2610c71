/**
 * The in-process message types every layer speaks: what front ends decode into, what the server,
 * schedulers and backends pass along, and what BLS child calls build. Depends only on tensor/.
 */
export type { ParamValue, Parameters, RequestedOutput, SequenceFlags, InferenceRequest, BatchTrace, RequestTrace, TraceActivity, TraceContext, TraceSpawner } from './inference-request.js';
export type { InferenceResponse } from './inference-response.js';
export type { CaptureKind, CaptureRecord, CaptureTap } from './capture-tap.js';
export { isReservedParameter } from './reserved-parameters.js';
export { CancelSource } from './cancel-signal.js';
export { callChainOf, checkCallCycle, setCallChain } from './call-chain.js';
export type { CallLink } from './call-chain.js';
export type { CancelSignal } from './cancel-signal.js';
export type { ResponseDemand } from './response-demand.js';
export { startOn } from './response-sink.js';
export { namesSeen, repeatsName } from './repeated-name.js';
export type { ResponseSink, StopRequest } from './response-sink.js';
