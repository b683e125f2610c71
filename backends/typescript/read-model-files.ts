import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { Errors } from '../../src/errors.js';

/** Scripts get their directory's small files; anything bigger belongs in another model. */
const MAX_TOTAL_BYTES = 64 * 1024 * 1024;

/**
 * The model directory's files by relative path ("tokenizer.json", "1/model.ts"), for `args.files`.
 * Other versions' directories, dot files and node_modules are left out. Symbolic links are
 * skipped (readdir's entries are not followed, and a file swapped for a link after the listing
 * fails to open with O_NOFOLLOW), so args.files holds nothing from outside the model directory.
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
        // O_NONBLOCK: a FIFO put in place of the file must not hang the load.
        const file = await open(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ELOOP') return undefined; // became a symbolic link since the listing
          throw Errors.modelLoadFailed(model, `cannot read ${relative(modelDir, p).split(sep).join('/')} for initialize(args.files) (${err.code ?? 'error'})`);
        });
        if (!file) continue;
        try {
          const st = await file.stat();
          if (!st.isFile()) continue;
          total += st.size;
          if (total > MAX_TOTAL_BYTES) {
            throw Errors.modelLoadFailed(model, `the model directory holds more than ${MAX_TOTAL_BYTES >> 20} MB of files; a script model passes them all to initialize(args.files), so keep large weights in their own model`);
          }
          out[relative(modelDir, p).split(sep).join('/')] = new Uint8Array(await file.readFile());
        } finally {
          await file.close();
        }
      }
    }
  };
  await walk(modelDir, true);
  return out;
}
