export { startMetricsServer, createMetrics } from './start-metrics-server.js';
export type { Metrics } from './start-metrics-server.js';
export { parseMetricsConfig } from './metrics-config.js';
export type { MetricsConfig } from './metrics-config.js';
export { createInferenceListener } from './inference-metrics.js';
