/**
 * The files a load request sends (`file:<path>` parameters), written to a private temporary model
 * directory that the repository removes on unload, on a failed load and when a later load
 * replaces it.
 */
import { mkdir, mkdtemp, open, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Errors } from '../errors.js';
import { confinePath, relativeNameProblem } from '../paths/index.js';
import { asLoadFailure } from './model-paths.js';

/**
 * Bounds on what one load request may write to disk; Triton has none, but without them any peer
 * that can reach the load API fills the server's temporary directory. The request body limits
 * (HTTP --http-body-limit, gRPC max message size) bound memory; these bound the disk.
 */
export interface UploadLimits {
  /** Most bytes over all `file:` parameters of one load. */
  maxBytes: number;
  /** Most `file:` parameters in one load. */
  maxFiles: number;
}

/**
 * 2 GiB is the largest single ONNX file protobuf can encode (a bigger model keeps its weights as
 * external data, which belongs in the repository on disk); 1000 files is far past any model layout
 * seen here (a TypeScript model with its data files has tens).
 */
export const DEFAULT_UPLOAD_LIMITS: Readonly<UploadLimits> = Object.freeze({ maxBytes: 2 * 1024 ** 3, maxFiles: 1000 });

export interface Upload {
  /** The private temporary directory (mode 0700) to remove when the upload is no longer served. */
  scratch: string;
  /** `<scratch>/<model>`: the model directory to load from. */
  dir: string;
}

const FIELD = 'load parameter';
const INSIDE = 'the model directory';
/** A `file:` key as messages show it: quoted as JSON so control characters stay visible, cut short. */
function shown(name: string): string {
  const key = `file:${name}`;
  return JSON.stringify(key.length > 160 ? `${key.slice(0, 160)}…` : key);
}

/** Refuse before touching the disk: counts, sizes, and names that could never be inside. */
function checkFiles(model: string, files: Record<string, Uint8Array>, limits: UploadLimits): void {
  const names = Object.keys(files);
  if (names.length > limits.maxFiles) {
    throw Errors.loadFilesTooLarge(model, `the request sends ${names.length} 'file:' parameters, more than the limit of ${limits.maxFiles}`);
  }
  let total = 0;
  for (const bytes of Object.values(files)) total += bytes.byteLength;
  if (total > limits.maxBytes) {
    throw Errors.loadFilesTooLarge(model, `the 'file:' parameters hold ${total} bytes, more than the limit of ${limits.maxBytes}`);
  }
  for (const name of names) {
    const problem = relativeNameProblem(name);
    if (problem) throw Errors.pathEscapes(FIELD, shown(name), problem, INSIDE).withContext(`failed to load '${model}'`);
  }
}

/** Why writing one file failed, without the path node puts in its messages. */
function writeFailure(model: string, name: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return Errors.loadNoSpace(model);
  if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') {
    return Errors.loadParameterInvalid(model, `load parameter ${shown(name)} collides with another 'file:' parameter (the same file twice, or a file where a directory is needed)`);
  }
  return Errors.loadParameterInvalid(model, `load parameter ${shown(name)} cannot be written (${code ?? 'error'})`);
}

/**
 * Write `files` under a fresh private directory. Every name is confined to the model directory
 * (src/paths/); files are created exclusively (O_EXCL never follows a link) and readable by the
 * server's user only. On any failure the directory is removed before the error is thrown.
 */
export async function writeUpload(model: string, files: Record<string, Uint8Array>, limits: UploadLimits): Promise<Upload> {
  checkFiles(model, files, limits);
  // mkdtemp creates the directory with mode 0700, so other local users cannot read the model.
  const scratch = await mkdtemp(join(tmpdir(), 'tributary-load-')).catch((e: unknown) => {
    throw Errors.loadTempDirFailed(model, (e as NodeJS.ErrnoException).code ?? 'error');
  });
  const dir = join(scratch, model);
  try {
    await mkdir(dir, { mode: 0o700 });
    const realDir = await realpath(dir);
    for (const [name, bytes] of Object.entries(files)) {
      const target = await confinePath(realDir, name, FIELD, { inside: INSIDE }).catch((e: unknown) => {
        throw asLoadFailure(model, e);
      });
      if (target === realDir) throw Errors.loadParameterInvalid(model, `load parameter ${shown(name)} names the model directory itself, not a file in it`);
      try {
        await mkdir(dirname(target), { recursive: true, mode: 0o700 });
        const handle = await open(target, 'wx', 0o600);
        try {
          await handle.writeFile(bytes);
        } finally {
          await handle.close();
        }
      } catch (e) {
        throw writeFailure(model, name, e);
      }
    }
    return { scratch, dir };
  } catch (e) {
    await removeUpload(scratch);
    throw e;
  }
}

export async function removeUpload(scratch: string): Promise<void> {
  await rm(scratch, { recursive: true, force: true });
}
