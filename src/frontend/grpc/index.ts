export { startGrpcServer, GRPC_DEFAULTS } from './start-grpc-server.js';
export type { GrpcServerOptions, GrpcServerHandle } from './start-grpc-server.js';
export type { GrpcKeepaliveOptions } from './grpc-keepalive.js';
export { serverCredentials } from './server-credentials.js';
// The .proto package definition, for benchmarks and tests that build their own grpc-js clients.
export { loadProtos } from './load-protos.js';
