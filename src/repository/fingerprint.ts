import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** A cheap change detector for poll mode: every file's relative path, size and mtime. */
export async function fingerprint(dir: string): Promise<string> {
  const parts: string[] = [];
  async function walk(d: string, rel: string): Promise<void> {
    const entries = await readdir(d, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const p = join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(p, r);
      else {
        const s = await stat(p).catch(() => undefined);
        if (s) parts.push(`${r}:${s.size}:${s.mtimeMs}`);
      }
    }
  }
  await walk(dir, '');
  return parts.join('|');
}
