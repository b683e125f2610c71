import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createIdentityBackend } from '../../../backends/identity/index.js';
import { createTypeScriptBackend, scaffoldModel } from '../../../backends/typescript/index.js';
import { createServer } from '../../../src/server/index.js';
import { createTensor, tensorStrings } from '../../../src/tensor/index.js';
import { inferAll } from './bls-repo.js';

test('scaffoldModel writes a model that type-checks, loads and answers its sample request', async () => {
  const repo = await mkdtemp(join(tmpdir(), 'trb-scaffold-'));
  const files = await scaffoldModel(join(repo, 'hello'), 'hello');
  assert.deepEqual(files.map((f) => f.slice(repo.length + 1)).sort(), ['hello/1/model.ts', 'hello/config.pbtxt', 'hello/sample-request.json']);
  await assert.rejects(scaffoldModel(join(repo, 'hello'), 'hello'), /already has a config\.pbtxt/);
  const sample = JSON.parse(await readFile(join(repo, 'hello', 'sample-request.json'), 'utf8')) as { inputs: { name: string; shape: number[]; data: string[] }[] };
  const server = await createServer({ modelRepository: repo, backends: [createTypeScriptBackend(), createIdentityBackend()] });
  try {
    const inp = sample.inputs[0]!;
    const [r] = await inferAll(server, { model: 'hello', inputs: [createTensor(inp.name, 'BYTES', inp.shape, inp.data)] });
    assert.ok(r);
    assert.deepEqual(tensorStrings(r.outputs.find((o) => o.name === 'UPPER')!), inp.data.map((s) => s.toUpperCase()));
    assert.deepEqual([...(r.outputs.find((o) => o.name === 'LENGTH')!.data as Int32Array)], inp.data.map((s) => s.length));
  } finally {
    await server.close();
  }
});
