export { startGrpcServer } from './start-grpc-server.js';
export type { GrpcServerOptions, GrpcServerHandle } from './start-grpc-server.js';
export { createTraceSettings } from './trace-settings.js';
export type { TraceSettings, TraceSettingValues } from './trace-settings.js';
// The handlers and proto loading, for other transports that serve the same service (grpc-h2).
export { loadProtos } from './load-protos.js';
export { modelInferHandler } from './model-infer.js';
export { modelStreamInferHandler } from './model-stream-infer.js';
export { repositoryHandlers } from './repository-handlers.js';
export { healthHandlers, serverHandlers } from './server-handlers.js';
export { settingsHandlers } from './settings-handlers.js';
export { sharedMemoryHandlers } from './shared-memory-handlers.js';
