/**
 * A small ONNX graph builder over onnx-proto's generated protobuf classes (no Python needed), used
 * by scripts/build-test-models.ts and by the built-in pipelines' model builders.
 */
export { GraphBuilder, createGraph, floatAttr, tensorProto } from './graph-builder.js';
export type { Dim, AttrValue, FloatAttr, ModelOptions, TensorValues } from './graph-builder.js';
export { onnx, ONNX_ELEM_TYPE, elemTypeFromOnnx } from './onnx-types.js';
export type { ElemType } from './onnx-types.js';
export { seededRandom, seededFloats } from './seeded-random.js';
export { MLP_SIZES, mlpWeights, buildMlp, mlpForward } from './mlp.js';
export { buildRaggedSum } from './ragged-sum.js';
export type { DenseLayer } from './mlp.js';
export { writeModels, sourceStamp } from './write-models.js';
export type { ModelSpec, WriteResult } from './write-models.js';
