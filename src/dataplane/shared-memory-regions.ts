/**
 * The shared-memory registry operations (status, register, unregister; system and CUDA) over
 * whatever registry the server runs with. Without one (client shared memory is off unless the
 * server runs with --allow-client-shm=true) registering and status are refused with how to enable
 * it. CUDA regions need a GPU: none is ever registered here, so a CUDA register is refused.
 */
import { Errors } from '../errors.js';

interface SharedMemoryRegionStatus { name: string; key: string; offset: number; byte_size: number }

/** What the data plane needs of a registry (src/frontend/shm implements it, over /dev/shm). */
export interface SharedMemoryRegions {
  register(name: string, key: string, offset: number, byteSize: number): void;
  unregister(name?: string): void;
  status(name?: string): SharedMemoryRegionStatus[];
}

interface CudaRegionStatus { name: string; device_id: number; byte_size: number }

export interface SharedMemoryOperations {
  systemStatus(region?: string): SharedMemoryRegionStatus[];
  systemRegister(region: string, key: unknown, offset: unknown, byteSize: unknown): void;
  systemUnregister(region?: string): void;
  cudaStatus(region?: string): CudaRegionStatus[];
  cudaRegister(region: string): never;
  cudaUnregister(region?: string): void;
}

function size(region: string, field: string, v: unknown): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  // A bigint is an integer literal past 2^53 kept exact by the JSON parser: shown with every digit.
  const got = typeof v === 'bigint' ? v.toString() : JSON.stringify(v) ?? String(v);
  throw Errors.shmRegisterInvalid(region, field, 'a non-negative integer below 2^53', got);
}

/**
 * Unregistering succeeds whether or not client shared memory is on, and CUDA status lists
 * nothing on this CPU server: Triton's clients unregister every region (system and CUDA) before
 * they start, and a server with nothing registered has nothing to refuse there. Whatever would
 * register or read a region is refused with how to turn it on.
 */
export function sharedMemoryOperations(registry: SharedMemoryRegions | undefined): SharedMemoryOperations {
  const on = (what: string): SharedMemoryRegions => {
    if (!registry) throw Errors.clientShmDisabled(what);
    return registry;
  };
  return {
    systemStatus: (region) => on(region ? `system shared memory status of region '${region}'` : 'system shared memory status').status(region),
    systemRegister(region, key, offset, byteSize) {
      const r = on(`register system shared memory region '${region}'`);
      if (!region) throw Errors.shmRegisterInvalid(region, 'the region name', 'given');
      if (typeof key !== 'string' || key === '') throw Errors.shmRegisterInvalid(region, 'key', 'a non-empty string');
      r.register(region, key, size(region, 'offset', offset ?? 0), size(region, 'byte_size', byteSize));
    },
    systemUnregister: (region) => registry?.unregister(region),
    cudaStatus(region) {
      on(region ? `CUDA shared memory status of region '${region}'` : 'CUDA shared memory status');
      if (region) throw Errors.cudaShmRegionNotFound(region);
      return [];
    },
    cudaRegister(region) {
      on(`register CUDA shared memory region '${region}'`);
      throw Errors.cudaShmUnsupported(region);
    },
    cudaUnregister: () => undefined,
  };
}
