import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Errors } from '../errors.js';

/** Model name -> absolute model directory, over every repository path. */
export async function findModels(repositories: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const repo of repositories) {
    const root = resolve(repo);
    let names: string[];
    try {
      if (!(await stat(root)).isDirectory()) throw new Error('not a directory');
      names = await readdir(root);
    } catch {
      throw Errors.repositoryNotFound(repo);
    }
    for (const name of names.sort()) {
      if (name.startsWith('.')) continue;
      const dir = join(root, name);
      if (!(await stat(dir).catch(() => undefined))?.isDirectory()) continue;
      const prior = out.get(name);
      if (prior) throw Errors.alreadyExists(`model '${name}' appears in more than one repository: ${prior} and ${dir}`);
      out.set(name, dir);
    }
  }
  return out;
}

/** Numeric version subdirectories of a model directory, ascending. */
export async function listVersions(modelDir: string): Promise<number[]> {
  const entries = await readdir(modelDir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && /^[0-9]+$/.test(e.name))
    .map((e) => Number(e.name))
    .sort((a, b) => a - b);
}
