/**
 * The TypeScript client SDK (`tributary/client`): the same calls over HTTP/REST and gRPC, modelled
 * on Triton's tritonclient. Tensors are the server's own `Tensor` records (src/tensor).
 */
export { createHttpClient } from './http/index.js';
export type { HttpClient, HttpClientOptions } from './http/index.js';
export { createGrpcClient, encodeModelInferMessage } from './grpc/index.js';
export type { GrpcClient, GrpcClientOptions } from './grpc/index.js';
export { ClientError } from './client-error.js';
export { ROUTING_HEADER } from './routing-key.js';
export type { RoutingHeaderOption } from './routing-key.js';
export type { ClientErrorInit } from './client-error.js';
export type {
  InferenceClient, InferOptions, InferResult, RequestedOutputOptions, SequenceOptions, LoadModelOptions, TlsClientOptions,
  ModelConfig, ModelIndexEntry, ModelMetadata, ModelStatistics, ServerMetadata, Parameters, Tensor,
} from './types.js';
export type { SharedMemoryRef, SharedMemoryRegionStatus, SystemSharedMemoryClient } from './shared-memory.js';
export { createTensor, tensorStrings } from '../tensor/index.js';
export type { DataType } from '../tensor/index.js';
