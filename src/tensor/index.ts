export { DATATYPES, CONFIG_DATATYPES, STORAGE, elementSize, isDataType, fromConfigType, toConfigType } from './datatype.js';
export type { DataType, ConfigDataType, TypedArray } from './datatype.js';
export { elementCount, formatShape, shapeMatches, dimsCompatible, resolveReshape } from './shape.js';
export {
  createTensor, tensorFromBytes, tensorByteSize, tensorToBytes, writeTensorBytes, tensorStrings,
  renameTensor, reshapeTensor,
} from './tensor.js';
export type { Tensor, BytesData } from './tensor.js';
export { concatBatch, sliceBatch } from './batch.js';
export { copyElements, isBigIntArray } from './copy-elements.js';
export { halfToNumber, bf16ToNumber } from './half-words.js';
export { markExclusive, isExclusive, releaseExclusive } from './exclusive-buffer.js';
