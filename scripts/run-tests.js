#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's built-in test runner (through tsx), so the runner's
// summary line closes the output. Extra arguments filter test files by substring.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2);
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (name === 'fixtures' || name === 'node_modules') continue;
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(relative(root, p));
  }
})(join(root, 'test'));
const chosen = filters.length ? files.filter((f) => filters.some((s) => f.includes(s))) : files;
// A test (or a whole file) that runs past 10 minutes fails instead of hanging the run (files take at
// most about a minute), and a file whose tests are done exits even if something it opened is still
// open: either way the summary line comes and the other files' results stand.
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=600000', '--test-force-exit', '--test-reporter=spec', ...chosen], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TRIBUTARY_TEST: '1' },
});
process.exit(r.status ?? 1);
