/** Pure wire formats: v2 JSON, the binary tensor extension, generate mapping, status table. */
export { STATUS_TABLE, grpcCodeForKind, httpStatusOf, grpcCodeOf, wireMessageOf } from './status-table.js';
export { tensorDataJson } from './json-tensor.js';
export { parseRequestParameters } from './request-parameters.js';
export { modelConfigToJson } from './model-config-to-json.js';
export { compileHeaderPattern, forwardHeaders } from './forward-headers.js';
export {
  REQUEST_LIMITS, checkInputCount, checkOutputCount, checkParameters, checkRank,
} from './request-limits.js';
export { parseJsonExact, stringifyExact } from './exact-json.js';
export { MAX_JSON_DEPTH, checkJsonDepth, jsonNestsDeeper } from './json-depth.js';
export {
  HEADER_LENGTH, parseHeaderLength, splitInferBody, BinaryCursor, binaryInput, rawBodyInput, frameBinary,
  binaryOutputSize, binaryChunks,
} from './binary-tensor.js';
export {
  decodeInferRequest, encodeInferResponse, encodeInferResponseParts, encodeInferRequest, decodeInferResponse, outputFromJson,
} from './v2-json.js';
export type {
  DecodeContext, DecodedInfer, ResponseEncoding, SharedMemoryAccess,
} from './v2-json.js';
export { jsonWireBytes, rawBytesJsonText } from './raw-bytes-json.js';
export { decodeGenerateRequest, encodeGenerateResponse } from './generate.js';
