export { DATATYPES, CONFIG_DATATYPES, STORAGE, elementSize, isDataType, fromConfigType, toConfigType } from './datatype.js';
export type { DataType, ConfigDataType, TypedArray } from './datatype.js';
export { elementCount, formatShape, shapeMatches, dimsCompatible, shapesEqual } from './shape.js';
export {
  createTensor, tensorFromBytes, tensorByteSize, tensorToBytes, writeTensorBytes, tensorStrings,
  renameTensor, reshapeTensor,
} from './tensor.js';
export type { Tensor, TensorData, BytesData, TensorInit } from './tensor.js';
export { concatBatch, sliceBatch } from './batch.js';
export { markExclusive, isExclusive, releaseExclusive } from './exclusive-buffer.js';
