/**
 * docs/cli.md is generated from the CLI (scripts/gen-cli-reference.ts): regenerating it must give
 * the checked-in page, so a flag, a default or a help text that changes without the page fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SERVE_FLAGS } from '../../src/cli/serve-flags.js';
import { CLI_DOC, cliReference } from '../../scripts/gen-cli-reference.js';

test('docs/cli.md is what scripts/gen-cli-reference.ts generates from the CLI today', async () => {
  const expected = await cliReference();
  const actual = readFileSync(CLI_DOC, 'utf8');
  if (actual === expected) return;
  const a = actual.split('\n');
  const e = expected.split('\n');
  const at = e.findIndex((line, i) => line !== a[i]);
  assert.fail(`docs/cli.md is stale from line ${at + 1}:\n  page:      ${a[at]}\n  generated: ${e[at]}\n`
    + 'regenerate it with: node --import tsx scripts/gen-cli-reference.ts');
});

test('docs/cli.md has one row per serve flag, with its default', () => {
  const page = readFileSync(CLI_DOC, 'utf8');
  for (const f of SERVE_FLAGS) {
    const row = page.split('\n').find((l) => l.startsWith(`| \`--${f.name}\` |`));
    assert.ok(row, `--${f.name} has no row`);
    if (f.default !== undefined) assert.ok(row.includes(`\`${f.default}\``), `--${f.name}: default ${f.default} missing from: ${row}`);
  }
});
