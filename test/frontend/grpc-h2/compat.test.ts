/**
 * The whole gRPC front-end suite (test/frontend/grpc/*.test.ts) against the lean node:http2
 * implementation, with the same grpc-js client: both implementations must answer alike.
 */
process.env.TRIBUTARY_GRPC_IMPL = 'http2';
await import('../grpc/grpc-server.test.js');
await import('../grpc/model-infer.test.js');
await import('../grpc/model-stream-infer.test.js');
await import('../grpc/shared-memory.test.js');
await import('../grpc/e2e.test.js');
