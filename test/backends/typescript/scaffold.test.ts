import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createIdentityBackend } from '../../../backends/identity/index.js';
import { createTypeScriptBackend, scaffoldModel } from '../../../backends/typescript/index.js';
import { createServer } from '../../../src/server/index.js';
import { createTensor, tensorStrings } from '../../../src/tensor/index.js';
import { inferAll } from './bls-repo.js';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

test('scaffoldModel writes a model that type-checks, loads and answers its sample request', async () => {
  const repo = await mkdtemp(join(tmpdir(), 'trb-scaffold-'));
  const files = await scaffoldModel(join(repo, 'hello'), 'hello');
  assert.deepEqual(files.map((f) => f.slice(repo.length + 1)).sort(), ['hello/1/model.ts', 'hello/config.pbtxt', 'hello/sample-request.json', 'hello/tsconfig.json']);
  // The written tsconfig.json resolves tributary/bls for a repository outside the project: a type
  // error in the script is reported against the bls types, a clean script passes.
  const tsc = (): ReturnType<typeof spawnSync> =>
    spawnSync(process.execPath, [TSC, '-p', join(repo, 'hello')], { encoding: 'utf8' });
  const clean = tsc();
  assert.equal(clean.status, 0, String(clean.stdout));
  const model = join(repo, 'hello', '1', 'model.ts');
  const good = await readFile(model, 'utf8');
  await writeFile(model, good.replace("request.input('TEXT').strings()", "request.input('TEXT').strings(1)"));
  const bad = tsc();
  assert.notEqual(bad.status, 0);
  assert.match(String(bad.stdout), /1\/model\.ts\(\d+,\d+\): error TS2554/);
  await writeFile(model, good);
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
