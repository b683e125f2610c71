/**
 * The client side of Triton's system shared-memory extension: register a region (a POSIX shm
 * object the server opens by its key, e.g. "/name" for /dev/shm/name), list and unregister
 * regions, and bind inputs and outputs to them with the tensor parameters both transports share.
 */
import type { Parameters } from '../inference/index.js';

/** Where a tensor's bytes are: `byteSize` bytes at `offset` (default 0) of registered region `region`. */
export interface SharedMemoryRef {
  region: string;
  byteSize: number;
  offset?: number;
}

/** A registered region as the server's status lists it. */
export interface SharedMemoryRegionStatus {
  name: string;
  key: string;
  offset: number;
  byte_size: number;
}

export interface SystemSharedMemoryClient {
  /** Register `byteSize` bytes at `offset` of the shm object `key` under the name `region`. */
  registerSystemSharedMemory(region: string, key: string, byteSize: number, offset?: number): Promise<void>;
  /** Every registered region, or only `region`. */
  systemSharedMemoryStatus(region?: string): Promise<SharedMemoryRegionStatus[]>;
  /** Unregister `region`, or every region. */
  unregisterSystemSharedMemory(region?: string): Promise<void>;
}

/** Triton's tensor parameters naming a tensor's place in a region. */
export function sharedMemoryParameters(ref: SharedMemoryRef): Parameters {
  return { shared_memory_region: ref.region, shared_memory_byte_size: ref.byteSize, ...(ref.offset ? { shared_memory_offset: ref.offset } : {}) };
}
