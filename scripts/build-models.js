#!/usr/bin/env node
// Builds every generated model (test fixtures and the built-in pipelines' models) into git-ignored
// folders. Runs on `npm install` (postinstall) and before tests. Each builder is a TypeScript
// module run through tsx; a builder skips work whose output is already up to date.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const builders = ['scripts/build-test-models.ts', 'scripts/build-pipeline-models.ts'];
for (const b of builders) {
  if (!existsSync(join(root, b))) continue;
  const r = spawnSync(process.execPath, ['--import', 'tsx', b, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`model build failed in ${b}; rerun with: npm run build-models`);
    process.exit(r.status ?? 1);
  }
}
