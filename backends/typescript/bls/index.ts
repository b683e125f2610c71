/**
 * `tributary/bls`: what model.ts imports. Bundled into every script at load time and run inside the
 * isolate; types for authors are in types/bls.d.ts (this file must export the same names).
 */
export { Tensor } from './tensor.js';
export type { DataType, TypedArray, TensorData, TensorInit } from './tensor.js';
export { ModelError } from './model-error.js';
export type { ErrorKind } from './model-error.js';
export { InferenceResponse } from './inference-response.js';
export type { InferenceResponseInit, Parameters, ParamValue } from './inference-response.js';
export { InferenceRequest } from './inference-request.js';
export type { InferenceRequestInit } from './inference-request.js';
export type { Request, ResponseSender, SendOptions } from './request.js';
export { logger } from './logger.js';
export type { Logger } from './logger.js';
export { MetricFamily } from './metric-family.js';
export type { Metric, MetricFamilyInit, MetricInit, MetricKind } from './metric-family.js';
export { isModelReady, loadModel, unloadModel } from './model-control.js';
export type { LoadModelOptions, UnloadModelOptions } from './model-control.js';
