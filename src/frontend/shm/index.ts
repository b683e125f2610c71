export type { SharedMemoryRegistry } from './shared-memory-registry.js';
export { createSharedMemoryRegistry } from './create-shared-memory-registry.js';
export { disabledSharedMemory } from './disabled-shared-memory.js';
