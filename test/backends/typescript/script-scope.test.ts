import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  PROJECT_NODE_MODULES, PROJECT_ROOT, RUNTIME_DIR, placeOfSync, scriptScope, scrubPaths, showPath,
} from '../../../backends/typescript/script-scope.js';

const base = mkdtempSync(join(tmpdir(), 'trb-scope-'));
const modelDir = join(base, 'm');
mkdirSync(join(modelDir, '1'), { recursive: true });
writeFileSync(join(modelDir, '1', 'model.ts'), '');
writeFileSync(join(base, 'secret.txt'), 'x');
symlinkSync(join(base, 'secret.txt'), join(modelDir, '1', 'link.txt'));
after(() => rmSync(base, { recursive: true, force: true }));
const scope = scriptScope(modelDir);

test('places are decided on real paths', () => {
  assert.equal(placeOfSync(scope, join(modelDir, '1', 'model.ts')), 'model');
  assert.equal(placeOfSync(scope, join(modelDir, '1', 'link.txt')), undefined, 'a link out of the model directory');
  assert.equal(placeOfSync(scope, join(PROJECT_NODE_MODULES, 'typescript', 'package.json')), 'packages');
  assert.equal(placeOfSync(scope, join(PROJECT_NODE_MODULES, '.package-lock.json')), undefined, 'tool state in node_modules');
  assert.equal(placeOfSync(scope, join(RUNTIME_DIR, 'index.ts')), 'runtime');
  assert.equal(placeOfSync(scope, join(PROJECT_ROOT, 'package.json')), undefined);
  assert.equal(placeOfSync(scope, '/etc/passwd'), undefined);
});

test('paths are shown without the server directories', () => {
  assert.equal(showPath(scope, join(modelDir, '1', 'model.ts')), '1/model.ts');
  assert.equal(showPath(scope, join(PROJECT_NODE_MODULES, 'pkg', 'index.js')), 'node_modules/pkg/index.js');
  assert.equal(showPath(scope, join(RUNTIME_DIR, 'entry.ts')), 'tributary/bls/entry.ts');
  assert.equal(showPath(scope, join(base, 'secret.txt')), '../secret.txt');
  const text = scrubPaths(scope, `File '${join(modelDir, '1', 'x.ts')}' and '${join(base, 'other')}' and /var${base} and ${PROJECT_ROOT}/src`);
  assert.ok(!text.replace(`/var${base}`, '').includes(base), text);
  assert.match(text, /File '1\/x\.ts' and '\.\.\/other'/);
  assert.ok(text.includes(`/var${base}`), 'a path that merely contains a known one is left alone');
  assert.ok(!text.includes(`${PROJECT_ROOT}/`), text);
});
