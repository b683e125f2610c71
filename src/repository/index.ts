export { ModelRepository } from './model-repository.js';
export type { ControlMode } from './model-repository.js';
export { readRepositoryConfigs, validateRepository } from './validate-repository.js';
export type { LoadOptions, ModelIndexEntry, ModelState } from './model-state.js';
export { DEFAULT_UPLOAD_LIMITS } from './upload-files.js';
export type { UploadLimits } from './upload-files.js';
