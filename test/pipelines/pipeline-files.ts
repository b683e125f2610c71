// Locates generated pipeline files and fails with the rebuild command when one is missing.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const pipelinesDir = join(repoRoot, 'pipelines');

export function pipelineFile(rel: string): string {
  const path = join(pipelinesDir, rel);
  if (!existsSync(path)) throw new Error(`${path} is missing; build it with: npm run build-models`);
  return path;
}
