/**
 * The shared-memory registry operations (status, register, unregister; system and CUDA) over
 * whatever registry the server runs with. Without one (client shared memory is off unless the
 * server runs with --allow-client-shm=true) every system operation is refused with how to enable
 * it. CUDA shared memory needs a GPU build: always UNSUPPORTED.
 */
import { Errors } from '../errors.js';

interface SharedMemoryRegionStatus { name: string; key: string; offset: number; byte_size: number }

/** What the data plane needs of a registry (src/frontend/shm implements it, over /dev/shm). */
export interface SharedMemoryRegions {
  register(name: string, key: string, offset: number, byteSize: number): void;
  unregister(name?: string): void;
  status(name?: string): SharedMemoryRegionStatus[];
}

export interface SharedMemoryOperations {
  systemStatus(region?: string): SharedMemoryRegionStatus[];
  systemRegister(region: string, key: unknown, offset: unknown, byteSize: unknown): void;
  systemUnregister(region?: string): void;
  cudaStatus(region?: string): never;
  cudaRegister(region: string): never;
  cudaUnregister(region?: string): never;
}

function size(region: string, field: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw Errors.shmRegisterInvalid(region, field, 'a non-negative integer below 2^53');
  return v;
}

export function sharedMemoryOperations(registry: SharedMemoryRegions | undefined): SharedMemoryOperations {
  const on = (): SharedMemoryRegions => {
    if (!registry) throw Errors.clientShmDisabled('system shared memory');
    return registry;
  };
  const noCuda = (): never => { throw Errors.cudaShmUnsupported(); };
  return {
    systemStatus: (region) => on().status(region),
    systemRegister(region, key, offset, byteSize) {
      const r = on();
      if (!region) throw Errors.shmRegisterInvalid(region, 'the region name', 'given');
      if (typeof key !== 'string' || key === '') throw Errors.shmRegisterInvalid(region, 'key', 'a non-empty string');
      r.register(region, key, size(region, 'offset', offset ?? 0), size(region, 'byte_size', byteSize));
    },
    systemUnregister: (region) => on().unregister(region),
    cudaStatus: noCuda,
    cudaRegister: noCuda,
    cudaUnregister: noCuda,
  };
}
