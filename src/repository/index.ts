export type { ControlMode } from './model-repository.js';
export { createRepository } from './model-namespaces.js';
export type { Repository } from './model-namespaces.js';
export { readRepositoryConfigs, validateRepository } from './validate-repository.js';
export { checkExperiments } from './check-experiments.js';
export { modelStepHints, shownPath, unknownStepHints } from './unknown-step-hints.js';
export type { LoadOptions, ModelIndexEntry, ModelState } from './model-state.js';
export { DEFAULT_UPLOAD_LIMITS } from './upload-files.js';
export type { UploadLimits } from './upload-files.js';
