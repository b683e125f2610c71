import { readFileSync } from 'node:fs';

/** The version in package.json: what `tributary --version` prints and the start banner shows. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}
