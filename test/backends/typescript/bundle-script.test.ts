import assert from 'node:assert/strict';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bundleScript } from '../../../backends/typescript/bundle-script.js';

async function modelWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'trb-bundle-'));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(dir, rel, '..'), { recursive: true });
    await writeFile(join(dir, rel), text);
  }
  return dir;
}

test('a package that needs a Node built-in is rejected, naming the package file and the import', async () => {
  const dir = await modelWith({
    '1/model.ts': "import { ping } from 'netty';\nexport default class Model { execute() { return ping(); } }\n",
    '1/node_modules/netty/package.json': '{ "name": "netty", "main": "index.js" }',
    '1/node_modules/netty/index.js': "const net = require('net');\nexports.ping = () => net.connect(1);\n",
  });
  const r = await bundleScript(join(dir, '1', 'model.ts'), dir);
  assert.equal(r.ok, false);
  const text = r.ok ? '' : r.errors.join('\n');
  assert.match(text, /1\/node_modules\/netty\/index\.js:1:\d+: import 'net': Node built-in modules are not available/);
});

test('a native addon is rejected', async () => {
  const dir = await modelWith({
    '1/model.ts': "import addon from './build/addon.node';\nexport default class Model { execute() { return addon; } }\n",
    '1/build/addon.node': 'not really a binary',
  });
  const r = await bundleScript(join(dir, '1', 'model.ts'), dir);
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.errors.join('\n'), /1\/model\.ts:1:\d+: import '\.\/build\/addon\.node': native addons \(\.node\) cannot run in the sandbox/);
});

test('pure-JS packages bundle, with a source map back to model.ts', async () => {
  const dir = await modelWith({
    '1/model.ts': "import { Tokenizer } from '@huggingface/tokenizers';\nexport default class Model { t = Tokenizer; execute() { return []; } }\n",
  });
  const r = await bundleScript(join(dir, '1', 'model.ts'), dir);
  assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
  assert.match(r.bundle.code, /WordPiece/); // the tokenizer package is inside the bundle
  assert.ok((JSON.parse(r.bundle.map) as { sources: string[] }).sources.some((s) => s.endsWith('model.ts')));
});

test("the model's own tsconfig.json does not steer resolution (esbuild gets a fixed one)", async () => {
  const dir = await modelWith({
    '1/model.ts': "import v from 'alias';\nexport default class Model { v = v; execute() { return []; } }\n",
    '1/real.ts': 'export default 1;\n',
    'tsconfig.json': '{ "compilerOptions": { "baseUrl": ".", "paths": { "alias": ["./1/real.ts"] } } }',
  });
  const r = await bundleScript(join(dir, '1', 'model.ts'), dir);
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.errors.join('\n'), /1\/model\.ts:1:15: Could not resolve "alias"/);
});

test('an import leaving the model directory is refused with its location, the directory not named', async () => {
  const repo = await modelWith({
    'm/1/model.ts': "// a sibling model's file\nimport v from '../../other/1/model.ts';\nexport default class Model { v = v; execute() { return []; } }\n",
    'other/1/model.ts': 'export default 1;\n',
  });
  const dir = join(repo, 'm');
  const r = await bundleScript(join(dir, '1', 'model.ts'), dir);
  assert.ok(!r.ok && r.refused);
  const text = r.errors.join('\n');
  assert.match(text, /^1\/model\.ts:2:15: import '\.\.\/\.\.\/other\/1\/model\.ts' is refused: it leaves the model directory/);
  assert.ok(!text.includes(repo), text);
});

test('imports inside a data: URL module are refused', async () => {
  const inner = 'import s from "../x.json"; export default s;';
  const dir = await modelWith({
    '1/model.ts': `import v from 'data:text/javascript,${encodeURIComponent(inner)}';\nexport default class Model { v = v; execute() { return []; } }\n`,
    '1/x.json': '{}',
  });
  const r = await bundleScript(join(dir, '1', 'model.ts'), dir);
  assert.ok(!r.ok && r.refused);
  assert.match(r.errors.join('\n'), /imports inside a data: URL module are not followed/);
});
