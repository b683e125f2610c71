export { createMetrics, listenMetrics, startMetricsServer } from './start-metrics-server.js';
export { METRICS_INTERVAL_MS, registerSystemMetrics } from './system-metrics.js';
export { aggregateMetrics, type MetricsJson } from './aggregate-metrics.js';
export { registerCaptureMetrics } from './capture-metrics.js';
export { registerStreamMetrics } from './stream-metrics.js';
