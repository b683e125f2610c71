/**
 * Contract for the system shared-memory extension, shared by the HTTP and gRPC front ends.
 * The implementation (POSIX /dev/shm regions, bounds checks, optional native mapping) lives in
 * this folder; front ends only call these methods when a request carries the
 * `shared_memory_region`, `shared_memory_offset`, `shared_memory_byte_size` parameters.
 */
export interface SharedMemoryRegionStatus {
  name: string;
  key: string;
  offset: number;
  byte_size: number;
}

export interface SharedMemoryRegistry {
  register(name: string, key: string, offset: number, byteSize: number): void;
  unregister(name?: string): void;
  status(name?: string): SharedMemoryRegionStatus[];
  /** Bytes of an input placed in a region (a view where the mapping allows it). Throws INVALID_ARG when out of bounds. */
  read(name: string, offset: number, byteSize: number): Uint8Array;
  /** Write an output into a region. Throws INVALID_ARG when it does not fit. */
  write(name: string, offset: number, bytes: Uint8Array): void;
}
