/**
 * Files a model's config names, each confined to its proper root inside the model directory
 * (Triton's layout): the version directory and its model file, label files in the model
 * directory, `initial_state/` data files and `warmup/` input files. Refusals and "not found"
 * messages name the field and the value relative to the model directory, never the server's own
 * directories (an upload lives in a temporary directory whose path tells a client about the host).
 */
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors, TributaryError } from '../errors.js';
import { confinePath } from '../paths/index.js';

/** The real paths a backend loads a version from; all three are inside the model directory. */
export interface VersionPaths {
  modelDir: string;
  versionDir: string;
  modelFile: string;
}

/** A refusal from src/paths/ as a load failure of `model`, keeping its code and kind. */
export function asLoadFailure(model: string, e: unknown): unknown {
  return e instanceof TributaryError && Errors.pathEscapes.is(e) ? e.withContext(`failed to load '${model}'`) : e;
}

/**
 * `name` inside `<model>/<sub>/`, or inside the model directory itself when `sub` is undefined.
 * Both the name and the subdirectory are checked: `warmup/` being a symbolic link out of the model
 * directory is refused like a name that climbs out with '..'.
 */
export async function confineModelFile(modelDir: string, sub: string | undefined, name: string, field: string, inside: string): Promise<string> {
  if (sub === undefined) return confinePath(modelDir, name, field, { inside });
  await confinePath(join(modelDir, sub), name, field, { inside });
  return confinePath(modelDir, `${sub}/${name}`, field, { inside });
}

/**
 * The version directory (a symbolic link out of the model directory is refused) and the model
 * file in it: `configured` (the config's default_model_filename) or else the backend's `fallback`.
 */
export async function versionPaths(model: string, modelDir: string, version: string, configured: string, fallback: string): Promise<VersionPaths> {
  const dirs = await versionDirectory(model, modelDir, version);
  const field = configured ? 'default_model_filename' : 'model file';
  const modelFile = await confineModelFile(dirs.modelDir, version, configured || fallback, field, `version directory ${version}/ of the model`)
    .catch((e: unknown) => { throw asLoadFailure(model, e); });
  return { ...dirs, modelFile };
}

/** The model directory's real path and the version directory's, refused when it links out. */
export async function versionDirectory(model: string, modelDir: string, version: string): Promise<Omit<VersionPaths, 'modelFile'>> {
  try {
    const realModelDir = await realpath(modelDir);
    return { modelDir: realModelDir, versionDir: await confinePath(realModelDir, version, 'version directory', { inside: 'the model directory' }) };
  } catch (e) {
    throw asLoadFailure(model, withoutPath(model, e));
  }
}

/**
 * A file-system error (ENOENT, EACCES, ...) as a load failure that keeps the code but not the
 * path node puts in its message; anything else is returned unchanged.
 */
export function withoutPath(model: string, e: unknown): unknown {
  const err = e as NodeJS.ErrnoException;
  if (e instanceof TributaryError || !(e instanceof Error) || typeof err.code !== 'string' || typeof err.syscall !== 'string') return e;
  return Errors.modelLoadFailed(model, `the model directory cannot be read (${err.syscall}: ${err.code})`);
}

/** Read a file a config field names (already confined); a missing file names the field, not a path. */
export async function readModelFile(model: string, path: string, field: string, shown: string, where: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' || code === 'ENOTDIR' ? `not found in ${where}` : code === 'EISDIR' ? `is a directory in ${where}, not a file` : `cannot be read (${code ?? 'error'})`;
    throw Errors.modelFileMissing(model, field, shown, why);
  }
}
