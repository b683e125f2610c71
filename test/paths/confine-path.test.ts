import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Errors } from '../../src/errors.js';
import { checkModelName, confineAbsolute, confineAbsoluteSync, confinePath, confinePathSync, isInside } from '../../src/paths/index.js';

const base = mkdtempSync(join(tmpdir(), 'confine-'));
const root = join(base, 'model');
mkdirSync(join(root, 'sub'), { recursive: true });
writeFileSync(join(root, 'labels.txt'), 'a\n');
writeFileSync(join(base, 'secret.txt'), 'outside');
symlinkSync(join(base, 'secret.txt'), join(root, 'link-out'));
symlinkSync(join(root, 'labels.txt'), join(root, 'link-in'));
symlinkSync(base, join(root, 'sub', 'dir-out'));
after(() => rmSync(base, { recursive: true, force: true }));

const refused = (field: string) => (e: unknown) => {
  assert.ok(Errors.pathEscapes.is(e), String(e));
  const msg = (e as Error).message;
  assert.ok(msg.startsWith(field), msg);
  assert.ok(!msg.includes(base), `message leaks the server path: ${msg}`);
  return true;
};

test('names inside the root resolve to their real path', async () => {
  assert.equal(await confinePath(root, 'labels.txt', 'label_filename'), join(root, 'labels.txt'));
  assert.equal(await confinePath(root, './sub/../sub', 'dir').catch(() => 'refused'), 'refused', "any '..' component is refused, even one that would stay inside");
  assert.equal(await confinePath(root, 'not/yet/there.bin', 'file'), join(root, 'not/yet/there.bin'));
  assert.equal(await confinePath(root, 'link-in', 'label_filename'), join(root, 'labels.txt'));
  assert.equal(confinePathSync(root, 'labels.txt', 'x'), join(root, 'labels.txt'));
});

for (const [name, what] of [
  ['../secret.txt', 'dot-dot'], ['sub/../../secret.txt', 'nested dot-dot'], ['/etc/passwd', 'absolute'],
  ['a\0b', 'NUL'], ['x'.repeat(300), 'over-long component'], ['a/'.repeat(600), 'over-long path'], ['', 'empty'],
  ['link-out', 'symlink to a file outside'], ['sub/dir-out/secret.txt', 'symlinked directory outside'],
  ['C:\\Windows', 'drive path'], ['..\\secret.txt', 'backslash dot-dot'],
] as const) {
  test(`refused: ${what}`, async () => {
    await assert.rejects(confinePath(root, name, 'label_filename'), refused('label_filename'));
    assert.throws(() => confinePathSync(root, name, 'label_filename'), refused('label_filename'));
  });
}

test('noFinalSymlink refuses a link even when it points inside', async () => {
  await assert.rejects(confinePath(root, 'link-in', 'shared memory key', { noFinalSymlink: true, inside: '/dev/shm' }), /symbolic link; it must name a file inside \/dev\/shm/);
});

test('confineAbsolute checks a resolver result', async () => {
  assert.equal(await confineAbsolute(root, join(root, 'labels.txt'), 'import', './labels.txt'), join(root, 'labels.txt'));
  await assert.rejects(confineAbsolute(root, '/etc/passwd', 'import', '/etc/passwd'), refused('import'));
  await assert.rejects(confineAbsolute(root, join(root, 'link-out'), 'import', './link-out'), refused('import'));
});

test('confineAbsoluteSync gives the same answers', () => {
  assert.equal(confineAbsoluteSync(root, join(root, 'link-in'), 'import', './link-in'), join(root, 'labels.txt'));
  assert.equal(confineAbsoluteSync(root, join(root, 'not-yet.ts'), 'import', './not-yet.ts'), join(root, 'not-yet.ts'));
  assert.throws(() => confineAbsoluteSync(root, '/etc/passwd', 'import', '/etc/passwd'), refused('import'));
  assert.throws(() => confineAbsoluteSync(root, join(root, 'sub', 'dir-out', 'secret.txt'), 'import', './sub/dir-out/secret.txt'), refused('import'));
});

test('isInside is not fooled by a common prefix', () => {
  assert.ok(isInside('/a/b', '/a/b'));
  assert.ok(isInside('/a/b', '/a/b/c'));
  assert.ok(!isInside('/a/b', '/a/bc'));
  assert.ok(!isInside('/a/b', '/a'));
});

for (const [name, why] of [
  ['', /empty/], ['.', /not a directory name/], ['..', /not a directory name/], ['a/b', /separator/], ['a\\b', /separator/],
  ['a\0b', /control character/], ['x'.repeat(256), /longer than 255 bytes/], ['é'.repeat(128), /longer than 255 bytes/],
] as const) {
  test(`model name refused: ${JSON.stringify(name).slice(0, 20)}`, () => {
    assert.throws(() => checkModelName(name), (e: unknown) => Errors.invalidModelName.is(e) && why.test((e as Error).message));
  });
}

test('ordinary model names pass', () => {
  for (const n of ['langid', 'ocr_det', 'a.b-c', 'x'.repeat(255), 'modèle']) assert.equal(checkModelName(n), n);
});
