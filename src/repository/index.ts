export { ModelRepository } from './model-repository.js';
export type { ControlMode, RepositoryOptions } from './model-repository.js';
export { findModels, listVersions } from './find-models.js';
export { readModelConfig } from './read-model-config.js';
export { selectVersions } from './version-policy.js';
export { loadModelVersion } from './model-loader.js';
export type { LoadEnv } from './model-loader.js';
export { validateRepository } from './validate-repository.js';
export type { LoadOptions, ModelIndexEntry, ModelState } from './model-state.js';
