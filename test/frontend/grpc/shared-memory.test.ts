import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { status } from '@grpc/grpc-js';
import { createSharedMemoryRegistry } from '../../../src/frontend/shm/index.js';
import { startHarness } from './harness.js';

test('system shared memory over gRPC: register, status, inputs from and outputs into a region', async (t) => {
  const key = `/tributary-grpc-${process.pid}`;
  const path = `/dev/shm${key}`;
  const input = Float32Array.of(1.5, -2, 3.25, 4);
  const file = Buffer.alloc(128);
  Buffer.from(input.buffer).copy(file, 8);
  writeFileSync(path, file);
  const shm = createSharedMemoryRegistry();
  const h = await startHarness({ sharedMemory: shm });
  t.after(async () => { await h.close(); shm.unregister(); rmSync(path, { force: true }); });
  const c = h.client;

  await c.call('SystemSharedMemoryRegister', { name: 'in', key, offset: 0, byte_size: 64 });
  await c.call('SystemSharedMemoryRegister', { name: 'out', key, offset: 64, byte_size: 64 });
  const st = await c.call('SystemSharedMemoryStatus', {});
  assert.deepEqual(st.regions.in, { name: 'in', key, offset: '0', byte_size: '64' });
  assert.deepEqual(Object.keys((await c.call('SystemSharedMemoryStatus', { name: 'out' })).regions), ['out']);

  const dup = await c.call('SystemSharedMemoryRegister', { name: 'in', key, offset: 0, byte_size: 8 }).catch((e) => e);
  assert.equal(dup.code, status.ALREADY_EXISTS);
  const oob = await c.call('SystemSharedMemoryRegister', { name: 'x', key, offset: 100, byte_size: 64 }).catch((e) => e);
  assert.equal(oob.code, status.INVALID_ARGUMENT);
  assert.match(oob.details, /^failed to register shared memory region 'x': invalid args; offset 100 \+ byte_size 64 exceeds the size of key/);

  const shmParams = (region: string, offset: number, size: number) => ({
    shared_memory_region: { string_param: region }, shared_memory_offset: { int64_param: offset }, shared_memory_byte_size: { int64_param: size },
  });
  const res = await c.call('ModelInfer', {
    model_name: 'echo',
    inputs: [
      { name: 'INPUT0', datatype: 'FP32', shape: [4], parameters: shmParams('in', 8, 16) },
      { name: 'INPUT1', datatype: 'INT32', shape: [1] },
    ],
    outputs: [{ name: 'OUTPUT0', parameters: shmParams('out', 4, 32) }, { name: 'OUTPUT1' }],
    raw_input_contents: [Buffer.from(Int32Array.of(77).buffer)], // one entry: the only input not in shared memory
  });
  assert.deepEqual([...(h.fake.requests[0]!.inputs[0]!.data as Float32Array)], [...input]);
  assert.deepEqual(res.outputs[0].parameters.shared_memory_region, { string_param: 'out', parameter_choice: 'string_param' });
  assert.equal(res.outputs[0].parameters.shared_memory_byte_size.int64_param, '16');
  assert.equal(res.raw_output_contents[0].length, 0, 'no bytes on the wire for an output in shared memory');
  assert.equal(Buffer.from(res.raw_output_contents[1]).readInt32LE(0), 77);
  const after = readFileSync(path);
  assert.deepEqual([...new Float32Array(after.buffer.slice(after.byteOffset + 68, after.byteOffset + 84))], [...input]);

  const small = await c.call('ModelInfer', {
    model_name: 'echo', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [4], parameters: shmParams('in', 8, 16) }],
    outputs: [{ name: 'OUTPUT0', parameters: shmParams('out', 0, 8) }],
  }).catch((e) => e);
  assert.equal(small.code, status.INVALID_ARGUMENT);
  assert.match(small.details, /^shared memory size specified with the request for output 'OUTPUT0' \(8 bytes\) should be at least 16 bytes to hold the results; model 'echo'$/);

  const past = await c.call('ModelInfer', {
    model_name: 'echo', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [4], parameters: shmParams('in', 56, 16) }],
  }).catch((e) => e);
  assert.equal(past.code, status.INVALID_ARGUMENT);
  assert.match(past.details, /^Invalid offset \+ byte size for shared memory region: 'in'; cannot read 16 bytes at offset 56/);

  await c.call('SystemSharedMemoryUnregister', { name: 'in' });
  assert.deepEqual(Object.keys((await c.call('SystemSharedMemoryStatus', {})).regions), ['out']);
  await c.call('SystemSharedMemoryUnregister', {});
  assert.deepEqual((await c.call('SystemSharedMemoryStatus', {})).regions, {});
});
