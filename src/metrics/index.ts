export { startMetricsServer } from './start-metrics-server.js';
export { METRICS_INTERVAL_MS } from './system-metrics.js';
