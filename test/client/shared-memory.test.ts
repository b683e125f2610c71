/**
 * The client SDK's system shared memory on both transports against a live server: register,
 * status, an input read from a region and an output written into one, unregister (one region
 * and all), and the server's refusal of a region past the end of its shm object.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { ClientError, createGrpcClient, createHttpClient, createTensor, type InferenceClient } from '../../src/client/index.js';
import { startShmServers, type ShmServers } from '../helpers/shm-servers.js';

const io = 'input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n';

let servers: ShmServers;

before(async () => {
  servers = await startShmServers({ 'ident/config.pbtxt': `name: "ident"\nbackend: "identity"\nmax_batch_size: 0\n${io}`, 'ident/1/model.identity': '' });
});

after(async () => {
  await servers?.close();
});

for (const transport of ['http', 'grpc'] as const) {
  test(`${transport}: register, status, infer through regions, unregister`, async (t) => {
    const key = `/tributary-client-${transport}-${process.pid}`;
    const path = `/dev/shm${key}`;
    const file = Buffer.alloc(64);
    Buffer.from(Float32Array.of(1.5, -2, 3.25, 4).buffer).copy(file, 8);
    writeFileSync(path, file);
    const client: InferenceClient = transport === 'http'
      ? createHttpClient({ url: `http://127.0.0.1:${servers.httpPort}` })
      : createGrpcClient({ address: `127.0.0.1:${servers.grpcPort}` });
    t.after(async () => { servers.shm.unregister(); await client.close(); rmSync(path, { force: true }); });

    await client.registerSystemSharedMemory('in', key, 32);
    await client.registerSystemSharedMemory('out', key, 32, 32);
    assert.deepEqual((await client.systemSharedMemoryStatus()).sort((a, b) => a.name.localeCompare(b.name)), [
      { name: 'in', key, offset: 0, byte_size: 32 },
      { name: 'out', key, offset: 32, byte_size: 32 },
    ]);
    assert.deepEqual((await client.systemSharedMemoryStatus('out')).map((r) => r.name), ['out']);
    const tooFar = await client.registerSystemSharedMemory('far', key, 64, 32).catch((e: unknown) => e);
    assert.ok(tooFar instanceof ClientError);
    assert.match(tooFar.message, /^failed to register shared memory region 'far': invalid args; .*exceeds the size of key/);

    // The tensor names the input and its shape; its data stays home (zeros here), the region's is read.
    const res = await client.infer('ident', [createTensor('X', 'FP32', [4], [0, 0, 0, 0])], {
      inputSharedMemory: { X: { region: 'in', byteSize: 16, offset: 8 } },
      outputs: [{ name: 'Y', sharedMemory: { region: 'out', byteSize: 16 } }],
    });
    assert.equal(res.outputs[0]?.name, 'Y');
    assert.deepEqual([...new Float32Array(Uint8Array.from(readFileSync(path).subarray(32, 48)).buffer)], [1.5, -2, 3.25, 4]);

    await client.unregisterSystemSharedMemory('in');
    assert.deepEqual((await client.systemSharedMemoryStatus()).map((r) => r.name), ['out']);
    await client.unregisterSystemSharedMemory();
    assert.deepEqual(await client.systemSharedMemoryStatus(), []);
  });
}
