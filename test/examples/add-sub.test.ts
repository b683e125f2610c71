/**
 * The add_sub example of docs/migrating-from-python.md, loaded from examples/guide and called
 * in-process, as the page shows a script model being tested.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer, inferOnce, type Server } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';

let server: Server;

before(async () => {
  server = await createServer({
    modelRepository: 'examples/guide', modelControlMode: 'explicit', loadModels: ['add_sub'],
  });
});
after(() => server.close());

test('add_sub returns the sum and the difference of its inputs', async () => {
  const response = await inferOnce(server, {
    model: 'add_sub',
    inputs: [
      createTensor('INPUT0', 'FP32', [4], [1, 2, 3, 4]),
      createTensor('INPUT1', 'FP32', [4], [4, 3, 2, 1]),
    ],
  });
  const output = (name: string) => [...response.outputs.find((t) => t.name === name)!.data as Float32Array];
  assert.deepEqual(output('OUTPUT0'), [5, 5, 5, 5]);
  assert.deepEqual(output('OUTPUT1'), [-3, -1, 1, 3]);
});

test('a request the config does not allow never reaches the script', async () => {
  await assert.rejects(
    inferOnce(server, { model: 'add_sub', inputs: [createTensor('INPUT0', 'FP32', [3], [1, 2, 3]), createTensor('INPUT1', 'FP32', [4], [1, 2, 3, 4])] }),
    /INPUT0/,
  );
});
