/**
 * gRPC wire formats (package `inference`, Triton-compatible): the .proto files, their loader
 * options, and pure conversions between decoded messages and the in-process types.
 */
export { int64Value, parameterFromProto, parameterToProto, parametersFromProto, parametersToProto } from './infer-parameter.js';
export { CONTENTS_FIELD, hasContents, tensorFromContents, tensorToContents } from './tensor-contents.js';
export { inferRequestFromProto, sharedMemoryRef } from './infer-request-from-proto.js';
export type { DecodedInferRequest, DecodeOptions, OutputPlacement } from './infer-request-from-proto.js';
export { inferResponseToProto, emptyFinalResponse } from './infer-response-to-proto.js';
export type { EncodeOptions } from './infer-response-to-proto.js';
export { modelConfigToProto } from './model-config-to-proto.js';
export type { ModelConfigMsg } from './model-config-to-proto.js';
export type * from './messages.js';
export { encodeInferResponse, encodeInferResponseFrame, encodeStreamInferResponse } from './encode-infer-response.js';
export { decodeInferRequest } from './decode-infer-request.js';
