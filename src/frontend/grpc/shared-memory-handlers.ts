import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { Errors } from '../../errors.js';
import { int64Value, type Int64 } from '../../protocol/grpc/index.js';
import type { SharedMemoryRegistry } from '../shm/index.js';
import { unary } from './unary.js';

function size(what: string, v: Int64): number {
  const n = int64Value(v);
  if (typeof n !== 'number' || n < 0) throw Errors.invalidArg(`${what} must be a non-negative integer below 2^53, got ${String(v)}`);
  return n;
}

const noCuda = () => {
  throw Errors.unsupported('CUDA shared memory is not supported: this server runs without a GPU; use system shared memory (SystemSharedMemoryRegister)');
};

export function sharedMemoryHandlers(shm: SharedMemoryRegistry): UntypedServiceImplementation {
  return {
    SystemSharedMemoryStatus: unary((r: { name: string }) => ({
      regions: Object.fromEntries(shm.status(r.name || undefined).map((s) => [s.name, s])),
    })),
    SystemSharedMemoryRegister: unary((r: { name: string; key: string; offset: Int64; byte_size: Int64 }) => {
      if (!r.name) throw Errors.invalidArg('SystemSharedMemoryRegister needs a region name');
      shm.register(r.name, r.key, size(`offset of region '${r.name}'`, r.offset), size(`byte_size of region '${r.name}'`, r.byte_size));
      return {};
    }),
    SystemSharedMemoryUnregister: unary((r: { name: string }) => {
      shm.unregister(r.name || undefined);
      return {};
    }),
    CudaSharedMemoryStatus: unary(noCuda),
    CudaSharedMemoryRegister: unary(noCuda),
    CudaSharedMemoryUnregister: unary(noCuda),
  };
}
