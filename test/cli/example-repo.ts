/**
 * The example repository of test/fixtures/repos/example, copied to a temporary directory with its
 * ONNX files added from build/models (no .onnx file is committed).
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testModelPath } from '../../scripts/build-test-models.js';

const EXAMPLE_REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/repos/example');

/** Model file in the repository -> generated test model it is copied from. */
const EXAMPLE_ONNX: Record<string, string> = {
  'simple/1/model.onnx': 'simple.onnx',
  'identity_fp32/1/model.onnx': 'identity_fp32.onnx',
};

export interface ExampleRepo { dir: string; remove(): void }

export function exampleRepo(): ExampleRepo {
  const root = mkdtempSync(join(tmpdir(), 'tributary-example-'));
  const dir = join(root, 'models');
  cpSync(EXAMPLE_REPO, dir, { recursive: true });
  for (const [rel, file] of Object.entries(EXAMPLE_ONNX)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    copyFileSync(testModelPath(file), join(dir, rel));
  }
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}
