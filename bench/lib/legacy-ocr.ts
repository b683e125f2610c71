/**
 * The `ocr` BLS orchestrator as it was before the pipeline became declarative (decode, boxes, crops
 * and CTC decoding in one script that calls ocr_det and ocr_rec), read from git at the last commit
 * that had it. Benchmarks run it beside the declared pipeline; scripts/write-ocr-expected.ts
 * recorded its outputs for the tests from it.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RepoModel } from './write-repository.js';

/** The last commit whose pipelines/ocr is the single-script orchestrator. */
export const LEGACY_OCR_COMMIT = '6cc202434ba2dbd0c7eda3bec5b3628b4e3003dd';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24 });

/** The orchestrator as model `name`, calling the repository's ocr_det and ocr_rec; `count` instances. */
export function legacyOcrModel(name = 'ocr_legacy', count = 2): RepoModel {
  const paths = git('ls-tree', '--name-only', LEGACY_OCR_COMMIT, 'pipelines/ocr/1/').split('\n').filter((p) => p.endsWith('.ts'));
  const files: RepoModel['files'] = Object.fromEntries(paths.map((p) => [`1/${p.split('/').pop()}`, git('show', `${LEGACY_OCR_COMMIT}:${p}`)]));
  // the character list is git-ignored (copied by `npm run build-models`); ocr_ctc holds it now
  files['1/ppocr_keys_v1.txt'] = { copyFrom: fileURLToPath(new URL('../../pipelines/ocr_ctc/1/ppocr_keys_v1.txt', import.meta.url)) };
  const config = git('show', `${LEGACY_OCR_COMMIT}:pipelines/ocr/config.pbtxt`)
    .replace(/^name: "ocr"/m, `name: "${name}"`)
    .replace(/instance_group \[[^\]]*\]/, `instance_group [ { count: ${count} kind: KIND_CPU } ]`);
  return { name, config, files };
}
