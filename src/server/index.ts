export { createServer, SERVER_NAME, SERVER_VERSION } from './create-server.js';
export type { LocalServer, ServerOptions } from './create-server.js';
export type {
  Server, ServerMetadata, ModelMetadata, TensorMetadata, ModelIndexEntry, ModelState, LoadOptions,
} from './types.js';
export type { CustomFamily, CustomMetricsView, CustomSeries } from './custom-metrics.js';
export { inferOnce } from './infer-once.js';
export { defaultBackends } from './default-backends.js';
