import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildHttpApp } from '../../../src/frontend/http/index.js';
import { Errors } from '../../../src/errors.js';
import type { SharedMemoryRegistry, SharedMemoryRegionStatus } from '../../../src/frontend/shm/shared-memory-registry.js';
import { createFakeServer } from './fake-server.js';

/** An in-memory registry: the contract's behaviour, without /dev/shm. */
function memoryRegistry(): SharedMemoryRegistry & { bytes: Map<string, Uint8Array> } {
  const regions = new Map<string, SharedMemoryRegionStatus>();
  const bytes = new Map<string, Uint8Array>();
  const get = (name: string) => {
    const b = bytes.get(name);
    if (!b) throw Errors.notFound(`unable to find system shared memory region: '${name}'`);
    return b;
  };
  return {
    bytes,
    register(name, key, offset, byteSize) {
      if (regions.has(name)) throw Errors.alreadyExists(`shared memory region '${name}' already in manager`);
      regions.set(name, { name, key, offset, byte_size: byteSize });
      bytes.set(name, new Uint8Array(byteSize));
    },
    unregister(name) {
      if (name === undefined) { regions.clear(); bytes.clear(); } else { regions.delete(name); bytes.delete(name); }
    },
    status: (name) => (name === undefined ? [...regions.values()] : [regions.get(name) ?? (() => { throw Errors.notFound(`no region '${name}'`); })()]),
    read: (name, offset, n) => get(name).subarray(offset, offset + n),
    write(name, offset, b) { get(name).set(b, offset); },
  };
}

test('register, infer through regions, status, unregister', async () => {
  const registry = memoryRegistry();
  const app = buildHttpApp(createFakeServer(), { sharedMemory: registry });
  try {
    const v2 = JSON.parse((await app.inject({ method: 'GET', url: '/v2' })).body);
    assert.ok(v2.extensions.includes('system_shared_memory'));
    assert.ok(!v2.extensions.includes('cuda_shared_memory'));
    const reg = (r: string) => app.inject({ method: 'POST', url: `/v2/systemsharedmemory/region/${r}/register`, payload: { key: `/${r}`, offset: 0, byte_size: 128 } });
    assert.equal((await reg('in')).statusCode, 200);
    assert.equal((await reg('out')).statusCode, 200);
    const dup = await reg('in');
    assert.equal(dup.statusCode, 400);
    assert.match(JSON.parse(dup.body).error, /already in manager/);
    const bad = await app.inject({ method: 'POST', url: '/v2/systemsharedmemory/region/x/register', payload: { key: '/x', byte_size: -1 } });
    assert.equal(bad.statusCode, 400);
    assert.match(JSON.parse(bad.body).error, /byte_size must be a non-negative integer/);

    new Float32Array(registry.bytes.get('in')!.buffer, 0, 16).set(Array.from({ length: 16 }, (_, i) => i));
    const res = await app.inject({
      method: 'POST', url: '/v2/models/identity/infer',
      payload: {
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], parameters: { shared_memory_region: 'in', shared_memory_byte_size: 64 } }],
        outputs: [{ name: 'OUTPUT0', parameters: { shared_memory_region: 'out', shared_memory_offset: 64, shared_memory_byte_size: 64 } }],
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const out = JSON.parse(res.body).outputs[0];
    assert.deepEqual(out.parameters, { shared_memory_region: 'out', shared_memory_byte_size: 64 });
    assert.equal(out.data, undefined);
    assert.deepEqual(Array.from(new Float32Array(registry.bytes.get('out')!.buffer, 64, 16)), Array.from({ length: 16 }, (_, i) => i));

    const status = JSON.parse((await app.inject({ method: 'GET', url: '/v2/systemsharedmemory/status' })).body);
    assert.deepEqual(status.map((s: { name: string }) => s.name).sort(), ['in', 'out']);
    assert.equal((await app.inject({ method: 'POST', url: '/v2/systemsharedmemory/region/in/unregister' })).statusCode, 200);
    const one = await app.inject({ method: 'GET', url: '/v2/systemsharedmemory/region/in/status' });
    assert.equal(one.statusCode, 404);
    assert.equal((await app.inject({ method: 'POST', url: '/v2/systemsharedmemory/unregister' })).statusCode, 200);
    assert.deepEqual(JSON.parse((await app.inject({ method: 'GET', url: '/v2/systemsharedmemory/status' })).body), []);
  } finally {
    await app.close();
  }
});
