export { createGrpcClient } from './create-grpc-client.js';
export type { GrpcClient, GrpcClientOptions } from './create-grpc-client.js';
export { encodeModelInferMessage } from './encode-model-infer-message.js';
