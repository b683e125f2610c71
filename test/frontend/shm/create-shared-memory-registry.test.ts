import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync, readFileSync, truncateSync } from 'node:fs';
import { createSharedMemoryRegistry } from '../../../src/frontend/shm/index.js';
import { Errors, TributaryError } from '../../../src/errors.js';

/** A POSIX shm object as a client's shm_open + ftruncate would leave it. */
function shmObject(t: { after(fn: () => void): void }, size: number): string {
  const key = `/tributary-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const data = Buffer.alloc(size);
  for (let i = 0; i < size; i++) data[i] = i & 0xff;
  writeFileSync(`/dev/shm${key}`, data);
  t.after(() => rmSync(`/dev/shm${key}`, { force: true }));
  return key;
}

const codeOf = (fn: () => unknown) => {
  try { fn(); } catch (e) { assert.ok(e instanceof TributaryError); return e.code; }
  assert.fail('expected a throw');
};

test('register, read, write, status and unregister a /dev/shm region', (t) => {
  const key = shmObject(t, 256);
  const shm = createSharedMemoryRegistry();
  t.after(() => shm.unregister());
  shm.register('r', key, 16, 64);
  assert.deepEqual(shm.status(), [{ name: 'r', key, offset: 16, byte_size: 64 }]);
  assert.deepEqual(shm.status('r'), [{ name: 'r', key, offset: 16, byte_size: 64 }]);
  // Reads are relative to the region's own offset in the object.
  assert.deepEqual([...shm.read('r', 4, 4)], [20, 21, 22, 23]);
  shm.write('r', 0, Uint8Array.of(9, 8, 7));
  const file = readFileSync(`/dev/shm${key}`);
  assert.deepEqual([...file.subarray(15, 20)], [15, 9, 8, 7, 19]);
  shm.unregister('r');
  assert.deepEqual(shm.status(), []);
  shm.unregister('r'); // unregistering an unknown name is not an error
});

test('bounds, duplicates, bad keys and missing objects give clear errors', (t) => {
  const key = shmObject(t, 100);
  const shm = createSharedMemoryRegistry();
  t.after(() => shm.unregister());
  assert.equal(codeOf(() => shm.register('big', key, 50, 51)), Errors.shmKeyTooSmall.code);
  shm.register('r', key, 0, 100);
  assert.equal(codeOf(() => shm.register('r', key, 0, 10)), Errors.shmRegionExists.code);
  assert.equal(codeOf(() => shm.read('r', 96, 8)), Errors.shmRangeOutside.code);
  assert.equal(codeOf(() => shm.write('r', 99, new Uint8Array(2))), Errors.shmRangeOutside.code);
  assert.equal(codeOf(() => shm.read('nope', 0, 1)), Errors.shmRegionUnknown.code);
  assert.equal(codeOf(() => shm.status('nope')), Errors.shmRegionNotFound.code);
  assert.equal(codeOf(() => shm.register('x', '/../etc/passwd', 0, 1)), Errors.pathEscapes.code);
  assert.equal(codeOf(() => shm.register('x', '/no-such-object-here', 0, 1)), Errors.shmKeyMissing.code);
  assert.equal(codeOf(() => shm.register('x', key, -1, 1)), Errors.shmSizeInvalid.code);
  // An object truncated after registration is reported, not read past.
  truncateSync(`/dev/shm${key}`, 10);
  assert.equal(codeOf(() => shm.read('r', 0, 50)), Errors.shmKeyTruncated.code);
});
