import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { DataPlane } from '../../dataplane/index.js';
import { int64Value, type Int64 } from '../../protocol/grpc/index.js';
import { unary } from './unary.js';

/** int64 past 2^53 stays a bigint, which the data plane refuses as a size. */
const size = (v: Int64) => int64Value(v);

/** The shared-memory extension's registry RPCs, through the data plane. */
export function sharedMemoryHandlers(plane: DataPlane): UntypedServiceImplementation {
  return {
    SystemSharedMemoryStatus: unary((r: { name: string }) => ({
      regions: Object.fromEntries(plane.systemStatus(r.name || undefined).map((s) => [s.name, s])),
    })),
    SystemSharedMemoryRegister: unary((r: { name: string; key: string; offset: Int64; byte_size: Int64 }) => {
      plane.systemRegister(r.name, r.key, size(r.offset), size(r.byte_size));
      return {};
    }),
    SystemSharedMemoryUnregister: unary((r: { name: string }) => {
      plane.systemUnregister(r.name || undefined);
      return {};
    }),
    CudaSharedMemoryStatus: unary((r: { name: string }) => ({
      regions: Object.fromEntries(plane.cudaStatus(r.name || undefined).map((s) => [s.name, s])),
    })),
    CudaSharedMemoryRegister: unary((r: { name: string }) => plane.cudaRegister(r.name)),
    CudaSharedMemoryUnregister: unary((r: { name: string }) => {
      plane.cudaUnregister(r.name || undefined);
      return {};
    }),
  };
}
