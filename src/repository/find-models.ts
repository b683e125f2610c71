import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Errors } from '../errors.js';

/** Model name -> absolute model directory, over every repository path. */
export async function findModels(repositories: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  // Paths as the operator gave them (--model-repository), for messages that may reach clients.
  const shown = new Map<string, string>();
  for (const repo of repositories) {
    const root = resolve(repo);
    let names: string[];
    try {
      if (!(await stat(root)).isDirectory()) throw Errors.repositoryNotFound(repo);
      names = await readdir(root);
    } catch {
      throw Errors.repositoryNotFound(repo);
    }
    for (const name of names.sort()) {
      if (name.startsWith('.')) continue;
      const dir = join(root, name);
      if (!(await stat(dir).catch(() => undefined))?.isDirectory()) continue;
      const prior = shown.get(name);
      const here = join(repo, name);
      if (prior) throw Errors.modelDuplicate(name, prior, here);
      out.set(name, dir);
      shown.set(name, here);
    }
  }
  return out;
}

/**
 * Numeric version subdirectories of a model directory, ascending. A symbolic link to a directory
 * counts (as in Triton), so that loading can refuse one that leaves the model directory by name
 * rather than skip it silently.
 */
export async function listVersions(modelDir: string): Promise<number[]> {
  const entries = await readdir(modelDir, { withFileTypes: true });
  const versions: number[] = [];
  for (const e of entries) {
    if (!/^[0-9]+$/.test(e.name)) continue;
    const isDir = e.isDirectory() || (e.isSymbolicLink() && (await stat(join(modelDir, e.name)).catch(() => undefined))?.isDirectory());
    if (isDir) versions.push(Number(e.name));
  }
  return versions.sort((a, b) => a - b);
}
