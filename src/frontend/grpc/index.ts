export { startGrpcServer } from './start-grpc-server.js';
export type { GrpcServerOptions, GrpcServerHandle } from './start-grpc-server.js';
export { createTraceSettings } from './trace-settings.js';
export type { TraceSettings, TraceSettingValues } from './trace-settings.js';
