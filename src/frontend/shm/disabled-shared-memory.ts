import { Errors } from '../../errors.js';
import type { SharedMemoryRegistry } from './shared-memory-registry.js';

/**
 * The registry a front end holds when client shared memory is off (tritonserver's
 * --allow-client-shm, default false): registering, status, unregistering and any tensor placed
 * in a region are all refused with how to turn it on.
 */
export function disabledSharedMemory(): SharedMemoryRegistry {
  const off = (what: string): never => { throw Errors.clientShmDisabled(what); };
  return {
    register: (name) => off(`register system shared memory region '${name}'`),
    unregister: () => off('unregister system shared memory'),
    status: () => off('system shared memory status'),
    read: (name) => off(`shared memory region '${name}'`),
    write: (name) => off(`shared memory region '${name}'`),
  };
}
