/**
 * The one place where a name from a request or a config becomes a path. A name is joined onto a
 * root the caller trusts (a model directory, the repository, /dev/shm), then both the lexical
 * result and its real path (symlinks resolved, for every component that exists) must stay inside
 * the root's real path. Errors name the field and the value the user gave, never the server's own
 * directories (those can be temporary paths that reveal the host's layout).
 */
import { lstatSync, realpathSync } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Errors } from '../errors.js';

/** Longest relative name we accept; past this the OS answers ENAMETOOLONG with the full path. */
const MAX_RELATIVE_PATH_BYTES = 1024;
/** Longest single component (Linux NAME_MAX). */
const MAX_COMPONENT_BYTES = 255;

/** True when `child` is `root` itself or lies beneath it (both absolute, already resolved). */
export function isInside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

/** Why `name` can never be a path under a root, before touching the disk; undefined when it may be. */
export function relativeNameProblem(name: string): string | undefined {
  if (typeof name !== 'string' || name.length === 0) return 'it is empty';
  if (name.includes('\0')) return 'it contains a NUL character';
  if (Buffer.byteLength(name, 'utf8') > MAX_RELATIVE_PATH_BYTES) return `it is longer than ${MAX_RELATIVE_PATH_BYTES} bytes`;
  if (isAbsolute(name) || name.startsWith('\\') || /^[A-Za-z]:/.test(name)) return 'it is an absolute path';
  for (const part of name.split(/[/\\]/)) {
    if (part === '..') return "it contains '..'";
    if (Buffer.byteLength(part, 'utf8') > MAX_COMPONENT_BYTES) return `a path component is longer than ${MAX_COMPONENT_BYTES} bytes`;
  }
  return undefined;
}

function escapes(field: string, value: string, why: string, inside?: string) {
  return Errors.pathEscapes(field, JSON.stringify(value).slice(0, 300), why, inside);
}

/** The real path of `p`, or of its deepest existing ancestor with the rest appended. */
async function realOrAncestor(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch {
    const parent = dirname(p);
    if (parent === p) return p;
    return join(await realOrAncestor(parent), p.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
  }
}

function realOrAncestorSync(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    const parent = dirname(p);
    if (parent === p) return p;
    return join(realOrAncestorSync(parent), p.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
  }
}

export interface ConfineOptions {
  /** How the root is named in errors (default 'the model directory'); never the real path. */
  inside?: string;
  /** Refuse when the final component is a symbolic link, even one pointing inside (shm keys). */
  noFinalSymlink?: boolean;
}

/**
 * `root/name`, resolved, or an INVALID_ARG naming `field` and `name` when it would leave `root`
 * (by '..', an absolute path, or a symlink anywhere on the way). A path that does not exist yet
 * is checked through its deepest existing ancestor, so it can be created afterwards.
 */
export async function confinePath(root: string, name: string, field: string, options: ConfineOptions = {}): Promise<string> {
  const problem = relativeNameProblem(name);
  if (problem) throw escapes(field, name, problem, options.inside);
  const realRoot = await realOrAncestor(resolve(root));
  const lexical = resolve(realRoot, name);
  if (!isInside(realRoot, lexical)) throw escapes(field, name, 'it leaves its directory', options.inside);
  const real = await realOrAncestor(lexical);
  if (!isInside(realRoot, real)) throw escapes(field, name, 'it leaves its directory through a symbolic link', options.inside);
  if (options.noFinalSymlink && (await lstat(lexical).catch(() => undefined))?.isSymbolicLink()) {
    throw escapes(field, name, 'it is a symbolic link', options.inside);
  }
  return real;
}

/** Synchronous `confinePath`, for callers that cannot wait (resolver hooks, registries). */
export function confinePathSync(root: string, name: string, field: string, options: ConfineOptions = {}): string {
  const problem = relativeNameProblem(name);
  if (problem) throw escapes(field, name, problem, options.inside);
  const realRoot = realOrAncestorSync(resolve(root));
  const lexical = resolve(realRoot, name);
  if (!isInside(realRoot, lexical)) throw escapes(field, name, 'it leaves its directory', options.inside);
  const real = realOrAncestorSync(lexical);
  if (!isInside(realRoot, real)) throw escapes(field, name, 'it leaves its directory through a symbolic link', options.inside);
  if (options.noFinalSymlink) {
    let link = false;
    try { link = lstatSync(lexical).isSymbolicLink(); } catch { /* absent: nothing to follow */ }
    if (link) throw escapes(field, name, 'it is a symbolic link', options.inside);
  }
  return real;
}

/**
 * An absolute path (one a resolver produced) checked against `root`: its real path must lie
 * inside. For script imports, where esbuild hands us absolute paths.
 */
export async function confineAbsolute(root: string, path: string, field: string, shown: string): Promise<string> {
  const realRoot = await realOrAncestor(resolve(root));
  const real = await realOrAncestor(resolve(path));
  if (!isInside(realRoot, real)) throw escapes(field, shown, 'it leaves the model directory');
  return real;
}

/** Synchronous `confineAbsolute`, for resolver hooks that cannot wait (the TypeScript compiler host). */
export function confineAbsoluteSync(root: string, path: string, field: string, shown: string): string {
  const realRoot = realOrAncestorSync(resolve(root));
  const real = realOrAncestorSync(resolve(path));
  if (!isInside(realRoot, real)) throw escapes(field, shown, 'it leaves the model directory');
  return real;
}
