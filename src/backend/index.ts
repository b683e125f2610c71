export type { BackendRequest, ExecuteTimings, BackendInstance, LoadContext, BackendModel, BackendFactory } from './backend.js';
export type { ModelHost } from './model-host.js';
export { BackendRegistry } from './registry.js';
