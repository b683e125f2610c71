import { Errors } from '../../errors.js';
import type { SharedMemoryRegistry } from './shared-memory-registry.js';

/**
 * The registry a front end holds when client shared memory is off (tritonserver's
 * --allow-client-shm, default false), answering as Triton does then: registering and
 * unregistering are refused, status lists nothing (no region can be registered), and a tensor
 * placed in a region names a region that is not registered.
 */
export function disabledSharedMemory(): SharedMemoryRegistry {
  const unknown = (name: string): never => { throw Errors.shmRegionUnknown(name, true); };
  return {
    register: () => { throw Errors.clientShmDisabled(); },
    unregister: () => { throw Errors.clientShmDisabled(); },
    status: (name) => {
      if (name) throw Errors.shmRegionNotFound(name);
      return [];
    },
    read: unknown,
    write: unknown,
  };
}
