import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alignedBuffer } from '../../../src/frontend/http/read-body.js';

test('alignedBuffer puts the binary section on an 8-byte boundary of its own ArrayBuffer', () => {
  for (const split of [0, 1, 3, 7, 8, 13, 250]) {
    const b = alignedBuffer(split + 64, split);
    assert.equal(b.byteLength, split + 64);
    assert.equal((b.byteOffset + split) % 8, 0, `split ${split}: offset ${b.byteOffset}`);
    // A Float64Array view right after the header needs no copy.
    assert.doesNotThrow(() => new Float64Array(b.buffer, b.byteOffset + split, 8));
  }
});

test('a large body gets its own ArrayBuffer (it may be moved to a worker thread)', () => {
  for (const split of [0, 5, 100]) {
    const b = alignedBuffer(1 << 20, split);
    assert.equal((b.byteOffset + split) % 8, 0);
    assert.ok(b.buffer.byteLength <= (1 << 20) + 7, 'a slice of a shared pool');
  }
});
