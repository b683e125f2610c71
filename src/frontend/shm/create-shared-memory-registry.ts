/**
 * System shared memory (Triton's system_shared_memory extension) over POSIX shm objects, which
 * Linux exposes as files under /dev/shm: a client's shm_open("/key") is /dev/shm/key. A key can
 * only ever open a regular file directly in that directory (open-shm-key.ts).
 *
 * Pure-JS path: each region keeps its file descriptor open and moves bytes with pread/pwrite
 * (fs.readSync/writeSync at a position). A read therefore returns a copy per request (one memcpy
 * from the page cache, which for tmpfs is the shared memory itself). An N-API addon that mmaps
 * the object (see native/) could hand out views without that copy; this path stays the fallback.
 */
import { closeSync, readSync, writeSync } from 'node:fs';
import { Errors } from '../../errors.js';
import { openShmKey } from './open-shm-key.js';
import type { SharedMemoryRegionStatus, SharedMemoryRegistry } from './shared-memory-registry.js';

interface Region extends SharedMemoryRegionStatus { fd: number }

export interface SharedMemoryRegistryOptions {
  /** Directory holding the shm objects; /dev/shm on Linux. Keys never name anything outside it. */
  root?: string;
}

const q = (s: string) => `'${s}'`;

function checkSize(what: string, v: number): void {
  if (!Number.isSafeInteger(v) || v < 0) throw Errors.shmSizeInvalid(what, v);
}

export function createSharedMemoryRegistry(options: SharedMemoryRegistryOptions = {}): SharedMemoryRegistry {
  const root = options.root ?? '/dev/shm';
  const regions = new Map<string, Region>();

  const find = (name: string): Region => {
    const r = regions.get(name);
    if (!r) throw Errors.shmRegionUnknown(name);
    return r;
  };

  const span = (r: Region, offset: number, byteSize: number, verb: string): number => {
    checkSize(`shared memory offset for region ${q(r.name)}`, offset);
    checkSize(`shared memory byte size for region ${q(r.name)}`, byteSize);
    if (offset + byteSize > r.byte_size) {
      throw Errors.shmRangeOutside(verb, byteSize, offset, r.name, r.byte_size);
    }
    return r.offset + offset;
  };

  return {
    register(name, key, offset, byteSize) {
      if (regions.has(name)) throw Errors.shmRegionExists(name);
      checkSize(`offset of shared memory region ${q(name)}`, offset);
      checkSize(`byte_size of shared memory region ${q(name)}`, byteSize);
      const { fd, size } = openShmKey(root, name, key);
      if (offset + byteSize > size) {
        closeSync(fd);
        throw Errors.shmKeyTooSmall(name, offset, byteSize, key, size);
      }
      regions.set(name, { name, key, offset, byte_size: byteSize, fd });
    },

    unregister(name) {
      // Unregistering a name that is not registered is not an error (as in Triton).
      const doomed = name === undefined || name === '' ? [...regions.values()] : [regions.get(name)].filter((r): r is Region => !!r);
      for (const r of doomed) {
        regions.delete(r.name);
        closeSync(r.fd);
      }
    },

    status(name) {
      const list = name === undefined || name === '' ? [...regions.values()] : [regions.get(name)].filter((r): r is Region => !!r);
      if (name && list.length === 0) throw Errors.shmRegionNotFound(name);
      return list.map((r) => ({ name: r.name, key: r.key, offset: r.offset, byte_size: r.byte_size }));
    },

    read(name, offset, byteSize) {
      const r = find(name);
      const pos = span(r, offset, byteSize, 'read');
      const out = Buffer.allocUnsafe(byteSize);
      let got = 0;
      while (got < byteSize) {
        const n = readSync(r.fd, out, got, byteSize - got, pos + got);
        if (n === 0) throw Errors.shmKeyTruncated(name, r.key, pos + byteSize);
        got += n;
      }
      return out;
    },

    write(name, offset, bytes) {
      const r = find(name);
      const pos = span(r, offset, bytes.byteLength, 'write');
      let put = 0;
      while (put < bytes.byteLength) put += writeSync(r.fd, bytes, put, bytes.byteLength - put, pos + put);
    },
  };
}
