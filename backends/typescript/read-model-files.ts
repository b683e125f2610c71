import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { Errors } from '../../src/errors.js';

/** Scripts get their directory's small files; anything bigger belongs in another model. */
const MAX_TOTAL_BYTES = 64 * 1024 * 1024;

/**
 * The model directory's files by relative path ("tokenizer.json", "1/model.ts"), for `args.files`.
 * Other versions' directories, dot files and node_modules are left out.
 */
export async function readModelFiles(model: string, modelDir: string, version: string): Promise<Record<string, Uint8Array>> {
  const out: Record<string, Uint8Array> = {};
  let total = 0;
  const walk = async (dir: string, top: boolean): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (top && /^\d+$/.test(e.name) && e.name !== version) continue;
        await walk(p, false);
      } else if (e.isFile()) {
        total += (await stat(p)).size;
        if (total > MAX_TOTAL_BYTES) {
          throw Errors.modelLoadFailed(model, `model directory ${modelDir} holds more than ${MAX_TOTAL_BYTES >> 20} MB of files; a script model passes them all to initialize(args.files), so keep large weights in their own model`);
        }
        out[relative(modelDir, p).split(sep).join('/')] = new Uint8Array(await readFile(p));
      }
    }
  };
  await walk(modelDir, true);
  return out;
}
