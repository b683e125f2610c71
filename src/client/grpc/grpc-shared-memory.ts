import type { SharedMemoryRegionStatus, SystemSharedMemoryClient } from '../shared-memory.js';

type Unary = <T>(method: string, req: unknown) => Promise<T>;

/** The system shared-memory extension's gRPC calls; an empty name means every region, as in Triton. */
export function grpcSharedMemory(unary: Unary): SystemSharedMemoryClient {
  return {
    async registerSystemSharedMemory(name, key, byteSize, offset = 0) {
      await unary('SystemSharedMemoryRegister', { name, key, offset, byte_size: byteSize });
    },
    async systemSharedMemoryStatus(name = '') {
      const res = await unary<{ regions: Record<string, SharedMemoryRegionStatus> }>('SystemSharedMemoryStatus', { name });
      return Object.values(res.regions ?? {}).map((r) => ({ name: r.name, key: r.key, offset: Number(r.offset), byte_size: Number(r.byte_size) }));
    },
    async unregisterSystemSharedMemory(name = '') {
      await unary('SystemSharedMemoryUnregister', { name });
    },
  };
}
