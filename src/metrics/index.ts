export { startMetricsServer } from './start-metrics-server.js';
