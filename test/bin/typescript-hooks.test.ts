/**
 * bin/typescript-hooks.js, the module hooks the `tributary` command runs its sources through:
 * a `.js` import finds its `.ts` source, a real `.js` file is left alone, types are stripped with
 * tsconfig's emit options (class fields defined as tsc defines them, type-only imports erased),
 * closures are not wrapped in name-defining calls (the reason the hooks exist), and a stack trace
 * points into the `.ts` file. Each case runs in a child node with only the hooks registered.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REGISTER = fileURLToPath(new URL('../../bin/register-typescript.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'trb-hooks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(files: Record<string, string>, entry: string): string {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  return execFileSync(process.execPath, ['--import', REGISTER, join(dir, entry)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

test('a .js import loads the .ts source; an existing .js file is loaded as it is', () => {
  const out = run({
    'main.ts': "import { twice } from './twice.js';\nimport { plain } from './plain.js';\nconst n: number = twice(21);\nconsole.log(n, plain);\n",
    'twice.ts': 'export const twice = (x: number): number => x * 2;\n',
    'plain.js': "export const plain = 'js';\n",
  }, 'main.ts');
  assert.equal(out.trim(), '42 js');
});

test('only an import from a .ts module means the .ts source: a .js module importing ./x.js gets x.js', () => {
  const out = run({
    'entry.ts': "import { v as fromTs } from './lib.js';\nimport { v as fromJs } from './caller.js';\nconsole.log(fromTs, fromJs);\n",
    'lib.ts': "export const v: string = 'lib.ts';\n",
    'lib.js': "export const v = 'lib.js';\n",
    'caller.js': "export { v } from './lib.js';\n",
  }, 'entry.ts');
  assert.equal(out.trim(), 'lib.ts lib.js');
});

test('emit follows tsconfig: class fields are defined (useDefineForClassFields), type-only imports vanish', () => {
  const out = run({
    'fields.ts': [
      "import type { Shape } from './shape-types.js';",
      'class Base { constructor() { (this as any).init(); } }',
      'class Child extends Base { value: number | undefined; init() { this.value = 1; } }',
      'const s: Shape = { w: 1 };',
      "console.log(new Child().value, 'value' in new Child(), s.w);",
    ].join('\n'),
    // No shape-types.ts exists: a type-only import that survived would fail to resolve.
  }, 'fields.ts');
  // tsc (ES2022, useDefineForClassFields) defines `value` after super() returns: undefined, own property.
  assert.equal(out.trim(), 'undefined true 1');
});

test('closures are not wrapped in name-defining calls, and keep the names JavaScript gives them', () => {
  const out = run({
    'names.ts': [
      'const make = () => { const onData = (x: number) => x; return onData; };',
      'function outer() { return function inner() {}; }',
      "console.log(make().name, outer().name, String(make).includes('__name'));",
    ].join('\n'),
  }, 'names.ts');
  assert.equal(out.trim(), 'onData inner false');
});

test('a stack trace names the .ts file and its line', () => {
  const out = run({
    'throws.ts': "type T = { a: number };\n\nconst t: T = { a: 1 };\nconsole.log(new Error('here').stack?.split('\\n')[1], t.a);\n",
  }, 'throws.ts');
  assert.match(out, /throws\.ts:4:\d+/);
});
