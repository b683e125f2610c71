import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RepoModel {
  name: string;
  config: string;
  /** The config's file name: `config.yaml` for a YAML pipeline (default `config.pbtxt`). */
  configFile?: string;
  /** Files by path relative to the model directory: text, bytes, or `{ copyFrom }` an existing file. */
  files?: Record<string, string | Uint8Array | { copyFrom: string }>;
}

/** A throwaway model repository in the temp directory. */
export function writeRepository(models: readonly RepoModel[]): string {
  const repo = mkdtempSync(join(tmpdir(), 'tributary-bench-'));
  for (const m of models) {
    const dir = join(repo, m.name);
    mkdirSync(join(dir, '1'), { recursive: true });
    writeFileSync(join(dir, m.configFile ?? 'config.pbtxt'), m.config);
    for (const [path, content] of Object.entries(m.files ?? {})) {
      const target = join(dir, path);
      mkdirSync(join(target, '..'), { recursive: true });
      if (typeof content === 'object' && 'copyFrom' in content) cpSync(content.copyFrom, target);
      else writeFileSync(target, content);
    }
  }
  return repo;
}
