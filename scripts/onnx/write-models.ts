import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

/** One generated model file: its name in the output folder and how to make its bytes. */
export interface ModelSpec {
  readonly file: string;
  readonly build: () => Uint8Array;
}

export interface WriteResult {
  written: string[];
  skipped: string[];
}

/** A version stamp from the text of the files that define the models: any edit rebuilds them. */
export function sourceStamp(files: readonly string[], extra = ''): string {
  const h = createHash('sha256').update(extra);
  for (const f of [...files].sort()) h.update(f).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex').slice(0, 16);
}

/**
 * Write each model into `outDir` unless `.stamps/<file>` already holds `stamp`. Files are written
 * to a temporary name and renamed, so concurrent builders (parallel test files) never see a
 * half-written model.
 */
export function writeModels(outDir: string, specs: readonly ModelSpec[], stamp: string): WriteResult {
  const stamps = join(outDir, '.stamps');
  mkdirSync(stamps, { recursive: true });
  const result: WriteResult = { written: [], skipped: [] };
  for (const spec of specs) {
    const target = join(outDir, spec.file);
    const stampFile = join(stamps, spec.file);
    if (existsSync(target) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) {
      result.skipped.push(spec.file);
      continue;
    }
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, spec.build());
    renameSync(tmp, target);
    writeFileSync(`${stampFile}.${process.pid}.tmp`, stamp);
    renameSync(`${stampFile}.${process.pid}.tmp`, stampFile);
    result.written.push(spec.file);
  }
  return result;
}
