import { createTensor, DATATYPES, type DataType, type Tensor } from '../../../src/tensor/index.js';

/** One small tensor per datatype, with values that exercise each type's range. */
export function sampleTensor(name: string, dt: DataType): Tensor {
  switch (dt) {
    case 'BOOL': return createTensor(name, dt, [2, 2], [true, false, false, true]);
    case 'INT8': return createTensor(name, dt, [4], [-128, -1, 0, 127]);
    case 'INT16': return createTensor(name, dt, [4], [-32768, -2, 3, 32767]);
    case 'INT32': return createTensor(name, dt, [4], [-(2 ** 31), -5, 6, 2 ** 31 - 1]);
    case 'INT64': return createTensor(name, dt, [3], [-(2n ** 63n), 9007199254740993n, 2n ** 63n - 1n]);
    case 'UINT8': return createTensor(name, dt, [3], [0, 1, 255]);
    case 'UINT16': return createTensor(name, dt, [3], [0, 1, 65535]);
    case 'UINT32': return createTensor(name, dt, [3], [0, 1, 2 ** 32 - 1]);
    case 'UINT64': return createTensor(name, dt, [2], [2n ** 64n - 1n, 12345678901234567890n]);
    case 'FP16': return createTensor(name, dt, [2], Uint16Array.of(0x3c00, 0xc000));
    case 'BF16': return createTensor(name, dt, [2], Uint16Array.of(0x3f80, 0xc000));
    case 'FP32': return createTensor(name, dt, [1, 3], [1.5, -2.25, 3.4028234663852886e38]);
    case 'FP64': return createTensor(name, dt, [2], [Math.PI, -1e300]);
    case 'BYTES': return createTensor(name, dt, [3], ['hello', '', 'wörld']);
  }
}

export const ALL_DATATYPES: readonly DataType[] = DATATYPES;
