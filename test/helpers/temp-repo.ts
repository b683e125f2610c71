/** Build a throw-away model repository on disk for end-to-end tests. */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureTestModels, testModelPath } from '../../scripts/build-test-models.js';

export interface TempRepo {
  dir: string;
  /** Write a file at a path relative to the repository. */
  file(rel: string, contents: string | Uint8Array): void;
  /** Copy a generated test model (build/models/<file>) to <model>/<version>/model.onnx. */
  onnx(model: string, file: string, version?: number): void;
  remove(): void;
}

export function tempRepo(files: Record<string, string> = {}): TempRepo {
  ensureTestModels();
  const dir = mkdtempSync(join(tmpdir(), 'tributary-repo-'));
  const repo: TempRepo = {
    dir,
    file(rel, contents) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), contents);
    },
    onnx(model, file, version = 1) {
      mkdirSync(join(dir, model, String(version)), { recursive: true });
      copyFileSync(testModelPath(file), join(dir, model, String(version), 'model.onnx'));
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  for (const [rel, text] of Object.entries(files)) repo.file(rel, text);
  return repo;
}
