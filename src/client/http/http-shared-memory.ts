import type { SharedMemoryRegionStatus, SystemSharedMemoryClient } from '../shared-memory.js';

/** The system shared-memory extension's HTTP routes (`/v2/systemsharedmemory/...`). */
export function httpSharedMemory(
  get: <T>(path: string) => Promise<T>, post: <T>(path: string, body: unknown) => Promise<T>,
): SystemSharedMemoryClient {
  const base = '/v2/systemsharedmemory';
  const region = (name?: string) => (name === undefined ? base : `${base}/region/${encodeURIComponent(name)}`);
  return {
    async registerSystemSharedMemory(name, key, byteSize, offset = 0) {
      await post(`${region(name)}/register`, { key, offset, byte_size: byteSize });
    },
    systemSharedMemoryStatus: (name) => get<SharedMemoryRegionStatus[]>(`${region(name)}/status`),
    async unregisterSystemSharedMemory(name) {
      await post(`${region(name)}/unregister`, {});
    },
  };
}
