import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalCache, parseCacheConfig, requestKey } from '../../src/cache/index.js';
import { decodePacked, encodePacked, packResponse, unpackResponse } from '../../src/cache/packed-response.js';
import { TributaryError } from '../../src/errors.js';
import { createTensor } from '../../src/tensor/index.js';

const f32 = (name: string, values: number[], shape = [values.length]) => createTensor(name, 'FP32', shape, values);

test('--cache-config: Triton syntax, keys of one cache add up, --response-cache-byte-size is local', () => {
  assert.deepEqual(parseCacheConfig(['local,size=1048576']), { kind: 'local', size: 1048576 });
  assert.deepEqual(parseCacheConfig([], 4096), { kind: 'local', size: 4096 });
  assert.equal(parseCacheConfig([]), undefined);
  assert.equal(parseCacheConfig(['local,size=0']), undefined, 'a zero size is no cache, as Triton');
  assert.deepEqual(parseCacheConfig(['redis,host=10.0.0.5', 'redis,port=6379', 'redis,socket_timeout=250', 'redis,pool_size=4']), {
    kind: 'redis', host: '10.0.0.5', port: 6379, connectTimeoutMs: 0, socketTimeoutMs: 250,
  });
  const refused = (args: string[], match: RegExp, bytes?: number) => assert.throws(() => parseCacheConfig(args, bytes), (e: unknown) => {
    assert.ok(e instanceof TributaryError && e.code === 'TRB_CACHE_CONFIG_INVALID', String(e));
    assert.match(e.message, match);
    return true;
  });
  refused(['local'], /<cache>,<key>=<value>/);
  refused(['memcached,size=1'], /unknown cache "memcached"/);
  refused(['local,size=1k'], /size must be a non-negative integer/);
  refused(['local,ttl=5'], /one setting: size/);
  refused(['redis,host=h'], /host and port are required/);
  refused(['redis,host=h', 'redis,port=1', 'redis,cluster=yes'], /unknown redis setting; known: host, port/);
  refused(['local,size=10', 'redis,host=h'], /one cache/);
  refused(['redis,host=h', 'redis,port=1'], /^--cache-config redis: --response-cache-byte-size=100 selects the local cache/, 100);
});

test('the key covers model, version, input name, datatype, shape, bytes, parameters and requested outputs', () => {
  const base = requestKey('m', '1', [f32('A', [1, 2, 3, 4], [2, 2]), f32('B', [5])], {});
  assert.equal(requestKey('m', '1', [f32('B', [5]), f32('A', [1, 2, 3, 4], [2, 2])], {}), base, 'input order does not matter');
  const differs = [
    requestKey('n', '1', [f32('A', [1, 2, 3, 4], [2, 2]), f32('B', [5])], {}),
    requestKey('m', '2', [f32('A', [1, 2, 3, 4], [2, 2]), f32('B', [5])], {}),
    requestKey('m', '1', [f32('A', [1, 2, 3, 4], [4]), f32('B', [5])], {}),
    requestKey('m', '1', [f32('A', [1, 2, 3, 5], [2, 2]), f32('B', [5])], {}),
    requestKey('m', '1', [f32('C', [1, 2, 3, 4], [2, 2]), f32('B', [5])], {}),
    requestKey('m', '1', [createTensor('A', 'INT32', [2, 2], [1, 2, 3, 4]), f32('B', [5])], {}),
    requestKey('m', '1', [f32('A', [1, 2, 3, 4], [2, 2]), f32('B', [5])], { parameters: { temperature: 0.5 } }),
    requestKey('m', '1', [f32('A', [1, 2, 3, 4], [2, 2]), f32('B', [5])], { parameters: { temperature: '0.5' } }),
    requestKey('m', '1', [f32('A', [1, 2, 3, 4], [2, 2]), f32('B', [5])], { outputs: [{ name: 'Y' }] }),
    requestKey('m', '1', [f32('A', [1, 2, 3, 4], [2, 2]), f32('B', [5])], { outputs: [{ name: 'Y', parameters: { classification: 2 } }] }),
  ];
  assert.equal(new Set([base, ...differs]).size, differs.length + 1, 'every change makes another key');
  // Reserved parameters steer scheduling, not the answer; binary_data only changes the encoding.
  assert.equal(requestKey('m', '1', [f32('A', [1, 2, 3, 4], [2, 2]), f32('B', [5])], { parameters: { priority: 1, triton_x: 'y' } }), base);
  assert.equal(
    requestKey('m', '1', [f32('B', [5])], { outputs: [{ name: 'Y', parameters: { binary_data: true } }] }),
    requestKey('m', '1', [f32('B', [5])], { outputs: [{ name: 'Y' }] }),
  );
  const bytes = (v: string[]) => requestKey('m', '1', [createTensor('T', 'BYTES', [v.length], v)], {});
  assert.notEqual(bytes(['ab', 'c']), bytes(['a', 'bc']), 'BYTES elements keep their boundaries');
});

test('a packed response reads back equal, from memory and from its Redis encoding', () => {
  const r = {
    outputs: [createTensor('S', 'BYTES', [2], ['yes', 'no']), createTensor('P', 'FP64', [1, 3], [0.5, 0.25, 0.125]), createTensor('I', 'INT8', [3], [1, -2, 3])],
    parameters: { n: 3, big: 2n ** 63n, ok: true, s: 'x' },
  };
  for (const back of [unpackResponse(packResponse(r)), unpackResponse(decodePacked(encodePacked(packResponse(r)))!)]) {
    assert.deepEqual(back.outputs.map((t) => [t.name, t.datatype, t.shape, [...t.data]]), r.outputs.map((t) => [t.name, t.datatype, t.shape, [...t.data]]));
    assert.deepEqual(back.parameters, r.parameters);
  }
  assert.equal(decodePacked(new Uint8Array([1, 2])), undefined, 'a foreign value is a miss');
});

test('the local cache keeps the most recently used entries within its byte budget', () => {
  const entry = (v: number) => ({ outputs: [f32('Y', new Array(64).fill(v))] });
  const one = new LocalCache(1 << 20);
  one.insert('k', entry(1));
  const size = one.usage().bytes;
  assert.ok(size > 256 && size < 1024, `one entry of 256 output bytes is charged ${size}`);

  const cache = new LocalCache(size * 2 + size / 2);
  cache.insert('a', entry(1));
  cache.insert('b', entry(2));
  assert.ok(cache.lookup('a'), 'a is now the most recently used');
  cache.insert('c', entry(3));
  assert.equal(cache.lookup('b'), undefined, 'b, the least recently used, was evicted');
  assert.equal((cache.lookup('a')!.outputs[0]!.data as Float32Array)[0], 1);
  assert.equal((cache.lookup('c')!.outputs[0]!.data as Float32Array)[0], 3);
  assert.deepEqual(cache.usage(), { entries: 2, bytes: size * 2, evictions: 1 });

  cache.insert('huge', { outputs: [f32('Y', new Array(4096).fill(0))] });
  assert.equal(cache.lookup('huge'), undefined, 'an entry larger than the budget is not stored');
  assert.equal(cache.usage().entries, 2, 'and evicts nothing');
});

test('the cache keeps its own copy: later writes to the response buffers do not reach it', () => {
  const cache = new LocalCache(1 << 16);
  const data = new Float32Array([1, 2, 3]);
  cache.insert('k', { outputs: [createTensor('Y', 'FP32', [3], data)] });
  data[0] = 99;
  assert.equal((cache.lookup('k')!.outputs[0]!.data as Float32Array)[0], 1);
});
