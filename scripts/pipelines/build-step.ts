/**
 * Up-to-date bookkeeping for generated pipeline files. A step declares the files it reads and the
 * files it writes; it reruns when a source changed (size or mtime), when its own builder code
 * changed, or when an output is missing or no longer matches the hash recorded when it was written
 * (a truncated or hand-edited model is rebuilt, not served).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface BuildStep {
  name: string;
  /** files read (package assets); a change reruns the step */
  sources: string[];
  /** builder modules whose code shapes the output */
  code: string[];
  /** output path -> bytes */
  build(): Promise<Map<string, Uint8Array | string>>;
}

interface Stamp { fingerprint: string; outputs: Record<string, string> }
type Stamps = Record<string, Stamp>;

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

function fingerprint(step: BuildStep): string {
  const h = createHash('sha256');
  for (const f of step.sources) {
    if (!existsSync(f)) throw new Error(`step '${step.name}': source ${f} is missing (is node_modules installed? run: npm install)`);
    const s = statSync(f);
    h.update(`${f}:${s.size}:${s.mtimeMs}\n`);
  }
  for (const f of step.code) h.update(readFileSync(f));
  return h.digest('hex');
}

function upToDate(stamp: Stamp | undefined, fp: string): boolean {
  if (!stamp || stamp.fingerprint !== fp) return false;
  return Object.entries(stamp.outputs).every(([path, hash]) => existsSync(path) && sha256(readFileSync(path)) === hash);
}

export interface StepResult { name: string; status: 'built' | 'up-to-date'; ms: number; outputs: string[] }

/** Runs the steps that are out of date; `force` rebuilds everything. */
export async function runBuildSteps(steps: BuildStep[], stampFile: string, force = false): Promise<StepResult[]> {
  const stamps: Stamps = existsSync(stampFile) ? JSON.parse(readFileSync(stampFile, 'utf8')) : {};
  const results: StepResult[] = [];
  for (const step of steps) {
    const t0 = performance.now();
    const fp = fingerprint(step);
    if (!force && upToDate(stamps[step.name], fp)) {
      results.push({ name: step.name, status: 'up-to-date', ms: performance.now() - t0, outputs: Object.keys(stamps[step.name]!.outputs) });
      continue;
    }
    const outputs = await step.build();
    const hashes: Record<string, string> = {};
    for (const [path, data] of outputs) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, data);
      hashes[path] = sha256(data);
    }
    stamps[step.name] = { fingerprint: fp, outputs: hashes };
    mkdirSync(dirname(stampFile), { recursive: true });
    writeFileSync(stampFile, JSON.stringify(stamps, null, 2));
    results.push({ name: step.name, status: 'built', ms: performance.now() - t0, outputs: [...outputs.keys()] });
  }
  return results;
}
