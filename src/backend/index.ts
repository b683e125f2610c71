export type { BackendRequest, ExecuteTimings, BackendInstance, LoadContext, BackendModel, BackendFactory } from './backend.js';
export { BackendRegistry } from './registry.js';
export { RESERVED_PARAMETERS, isReservedParameter } from './inference.js';
export type {
  ParamValue, Parameters, RequestedOutput, SequenceFlags, InferenceRequest, InferenceResponse, ModelHost,
} from './inference.js';
export { CancelSource } from './cancel-signal.js';
export type { CancelSignal } from './cancel-signal.js';
