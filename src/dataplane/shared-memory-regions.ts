/**
 * The shared-memory registry operations (status, register, unregister; system and CUDA) over
 * whatever registry the server runs with. Without one (client shared memory is off unless the
 * server runs with --allow-client-shm=true) registering and unregistering are refused with how to
 * enable it. CUDA regions need a GPU: none is ever registered here, so a CUDA register is refused.
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
 * Triton's answers (server http_server.cc, grpc_server.cc): status always answers, an empty list
 * while nothing is registered, which is always so for CUDA regions on this CPU server and for
 * system regions while client shared memory is off; registering and unregistering are refused
 * while it is off (--allow-client-shm, default false).
 */
export function sharedMemoryOperations(registry: SharedMemoryRegions | undefined): SharedMemoryOperations {
  const on = (): SharedMemoryRegions => {
    if (!registry) throw Errors.clientShmDisabled();
    return registry;
  };
  return {
    systemStatus(region) {
      if (registry) return registry.status(region);
      if (region) throw Errors.shmRegionNotFound(region);
      return [];
    },
    systemRegister(region, key, offset, byteSize) {
      const r = on();
      if (!region) throw Errors.shmRegisterNameMissing('system');
      if (key === undefined) throw Errors.shmRegisterFieldMissing('key');
      if (typeof key !== 'string' || key === '') throw Errors.shmRegisterInvalid(region, 'key', 'a non-empty string');
      if (byteSize === undefined) throw Errors.shmRegisterFieldMissing('byte_size');
      r.register(region, key, size(region, 'offset', offset ?? 0), size(region, 'byte_size', byteSize));
    },
    systemUnregister: (region) => on().unregister(region),
    cudaStatus(region) {
      if (region) throw Errors.cudaShmRegionNotFound(region);
      return [];
    },
    cudaRegister(region) {
      on();
      if (!region) throw Errors.shmRegisterNameMissing('cuda');
      throw Errors.cudaShmUnsupported(region);
    },
    cudaUnregister() {
      on();
    },
  };
}
