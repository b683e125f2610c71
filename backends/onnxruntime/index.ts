export { createOnnxRuntimeBackend } from './onnxruntime-backend.js';
export type { OrtBackendModel } from './onnxruntime-backend.js';
export { AUTO_WORKER_THRESHOLD_US } from './session-options.js';
export type { ExecutionTarget } from './session-options.js';
export { toOrtTensor, fromOrtTensor, ortTypeOf, dataTypeOfOrt } from './ort-tensor.js';
