export { Model } from './model.js';
export { StatsCollector } from './stats-collector.js';
export { modelMetadata } from './metadata.js';
export type { ModelMetadata, TensorMetadata } from './metadata.js';
export { runWarmup } from './warmup.js';
export * from './statistics.js';
