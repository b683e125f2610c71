export type { BackendRequest, ExecuteTimings, BackendInstance, LoadContext, BackendModel, BackendFactory } from './backend.js';
export type { ModelHost } from './model-host.js';
export type { CustomMetricsScope, MetricKind } from './custom-metrics-scope.js';
export type { ModelControl, ModelControlLoad } from './model-control.js';
export { BackendRegistry } from './registry.js';
export { checkRuntime } from './check-runtime.js';
export { parseBackendConfig, settingIs, withBackendDefaults, type BackendSettings } from './backend-settings.js';
