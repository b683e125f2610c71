/**
 * System shared memory (Triton's system_shared_memory extension) over POSIX shm objects, which
 * Linux exposes as files under /dev/shm: a client's shm_open("/key") is /dev/shm/key.
 *
 * Pure-JS path: each region keeps its file descriptor open and moves bytes with pread/pwrite
 * (fs.readSync/writeSync at a position). A read therefore returns a copy per request (one memcpy
 * from the page cache, which for tmpfs is the shared memory itself). An N-API addon that mmaps
 * the object (see native/) could hand out views without that copy; this path stays the fallback.
 */
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Errors } from '../../errors.js';
import type { SharedMemoryRegionStatus, SharedMemoryRegistry } from './shared-memory-registry.js';

interface Region extends SharedMemoryRegionStatus { fd: number; path: string }

export interface SharedMemoryRegistryOptions {
  /** Directory holding the shm objects; /dev/shm on Linux. */
  root?: string;
}

const q = (s: string) => `'${s}'`;

function checkSize(what: string, v: number): void {
  if (!Number.isSafeInteger(v) || v < 0) throw Errors.invalidArg(`${what} must be a non-negative integer, got ${v}`);
}

/** The object's file name: a POSIX shm name is "/name" with no other slash. */
function fileName(key: string): string {
  const name = key.startsWith('/') ? key.slice(1) : key;
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw Errors.invalidArg(`shared memory key ${q(key)} is not a valid POSIX shared memory name (expected "/name" with no other '/')`);
  }
  return name;
}

export function createSharedMemoryRegistry(options: SharedMemoryRegistryOptions = {}): SharedMemoryRegistry {
  const root = options.root ?? '/dev/shm';
  const regions = new Map<string, Region>();

  const find = (name: string): Region => {
    const r = regions.get(name);
    if (!r) throw Errors.invalidArg(`Unable to find system shared memory region: ${q(name)}`);
    return r;
  };

  const span = (r: Region, offset: number, byteSize: number, verb: string): number => {
    checkSize(`shared memory offset for region ${q(r.name)}`, offset);
    checkSize(`shared memory byte size for region ${q(r.name)}`, byteSize);
    if (offset + byteSize > r.byte_size) {
      throw Errors.invalidArg(`cannot ${verb} ${byteSize} bytes at offset ${offset} of shared memory region ${q(r.name)}: the region holds ${r.byte_size} bytes`);
    }
    return r.offset + offset;
  };

  return {
    register(name, key, offset, byteSize) {
      if (regions.has(name)) throw Errors.alreadyExists(`shared memory region ${q(name)} already in manager`);
      checkSize(`offset of shared memory region ${q(name)}`, offset);
      checkSize(`byte_size of shared memory region ${q(name)}`, byteSize);
      const path = join(root, fileName(key));
      let fd: number;
      try {
        fd = openSync(path, 'r+');
      } catch (e) {
        throw Errors.invalidArg(`Unable to open shared memory region ${q(name)}: key ${q(key)} (${path}): ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
      }
      const size = fstatSync(fd).size;
      if (offset + byteSize > size) {
        closeSync(fd);
        throw Errors.invalidArg(`shared memory region ${q(name)}: offset ${offset} + byte_size ${byteSize} exceeds the size of key ${q(key)} (${size} bytes)`);
      }
      regions.set(name, { name, key, offset, byte_size: byteSize, fd, path });
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
      if (name && list.length === 0) throw Errors.notFound(`Unable to find system shared memory region: ${q(name)}`);
      return list.map((r) => ({ name: r.name, key: r.key, offset: r.offset, byte_size: r.byte_size }));
    },

    read(name, offset, byteSize) {
      const r = find(name);
      const pos = span(r, offset, byteSize, 'read');
      const out = Buffer.allocUnsafe(byteSize);
      let got = 0;
      while (got < byteSize) {
        const n = readSync(r.fd, out, got, byteSize - got, pos + got);
        if (n === 0) throw Errors.invalidArg(`shared memory region ${q(name)}: key ${q(r.key)} ends before offset ${pos + byteSize} (was the object truncated?)`);
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
