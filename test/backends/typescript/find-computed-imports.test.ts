import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findComputedImports } from '../../../backends/typescript/find-computed-imports.js';

const found = (src: string) => findComputedImports(src, 'model.ts');

test('literal paths and plain variables are not computed imports', () => {
  assert.deepEqual(found("import x from './a.js';\nconst y = await import('./b.js');\nrequire('./c.json');\n"), []);
  assert.deepEqual(found('require(name);\n'), [], 'a plain variable is left to run time (esbuild does not glob it)');
});

test('computed paths that may climb out are reported with line and column, and no walk directory', () => {
  const [a] = found('const n = 1;\nexport const f = () => import(`../${n}.json`);\n');
  assert.equal(a!.line, 2);
  assert.equal(a!.column, 30);
  assert.equal(a!.text, '`../${n}.json`');
  assert.equal(a!.walks, undefined);
  for (const src of [
    "require('../' + n);", "import(('..' + '/') + n);", "import(`${'../'}${n}`);", "import('./' + n + '/.' + './x');",
    "import(`/etc/${n}`);", 'import(n + `.json`);', "import(`../${n}` as string);",
  ]) {
    assert.equal(found(src).length, 1, src);
    assert.equal(found(src)[0]!.walks, undefined, src);
  }
});

test('a computed path that stays below the file names the directory esbuild will walk', () => {
  assert.equal(found('const f = (n: string) => import(`./data/${n}.json`);')[0]?.walks, './data/');
  assert.equal(found('import(`./data/sub/${n}.json`);')[0]?.walks, './data/sub/');
  assert.equal(found("import('./' + n);")[0]?.walks, './');
});
