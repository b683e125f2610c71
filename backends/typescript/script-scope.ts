/**
 * What a script model's bundle may be built from. The bundler and the type checker run on the
 * host, so every file they read must lie in one of three places: the model directory (the author's
 * own files, the ones initialize() receives as args.files anyway), the server's installed packages
 * (its node_modules), or the sandbox runtime. Places are decided on real paths (symlinks resolved)
 * through src/paths, the one confinement check; names shown to users never carry the server's own
 * directories (uploads live in temporary directories whose paths reveal the host's layout).
 */
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Errors } from '../../src/errors.js';
import { confineAbsoluteSync, isInside } from '../../src/paths/index.js';

const here = dirname(fileURLToPath(import.meta.url));
export const PROJECT_ROOT = resolve(here, '..', '..');
/**
 * The node_modules holding the server's packages: scripts in a repository outside the project still
 * find them. Installed as a dependency, tributary's packages are hoisted next to it
 * (<project>/node_modules), so this is the nearest node_modules that has esbuild, a dependency.
 */
export const PROJECT_NODE_MODULES = packagesDir(PROJECT_ROOT);
export const RUNTIME_DIR = join(here, 'bls');
export const BLS_TYPES = join(PROJECT_ROOT, 'types', 'bls.d.ts');

function packagesDir(from: string): string {
  for (let dir = from; dirname(dir) !== dir; dir = dirname(dir)) {
    const nm = basename(dir) === 'node_modules' ? dir : join(dir, 'node_modules');
    if (existsSync(join(nm, 'esbuild'))) return nm;
  }
  return join(from, 'node_modules');
}

export type Place = 'model' | 'packages' | 'runtime';

export interface ScriptScope {
  /** The model directory as the repository names it. */
  modelDir: string;
  roots: ReadonlyArray<readonly [Place, string]>;
  /** [absolute prefix, what users see instead], longest prefix first. */
  shown: ReadonlyArray<readonly [string, string]>;
}

function realOr(p: string): string {
  try { return realpathSync(p); } catch { return p; }
}

/** The places a script of the model at `modelDir` may import from, and how paths around it are shown. */
export function scriptScope(modelDir: string): ScriptScope {
  const model = resolve(modelDir);
  // Most specific first: installed as a dependency, the runtime lies inside the packages directory.
  const roots = [['model', model], ['runtime', RUNTIME_DIR], ['packages', PROJECT_NODE_MODULES]] as const;
  const shown: Array<[string, string]> = [];
  for (const [place, root] of roots) {
    const as = place === 'model' ? '.' : place === 'packages' ? 'node_modules' : 'tributary/bls';
    shown.push([root, as], [realOr(root), as]);
  }
  // Paths that leave the model directory are shown relative to it ("../../x"), so a message
  // about them never spells out the directories around an upload.
  for (const dir of [model, realOr(model)]) {
    let up = '..';
    for (let d = dirname(dir); d !== dirname(d); d = dirname(d), up += '/..') shown.push([d, up]);
  }
  shown.push([PROJECT_ROOT, '<server>'], [realOr(PROJECT_ROOT), '<server>']);
  shown.sort((a, b) => b[0].length - a[0].length);
  return { modelDir: model, roots, shown };
}

/** True for entries like node_modules/.cache or .package-lock.json: tool state, not packages. */
function hiddenInPackages(root: string, real: string): boolean {
  return relative(root, real).split(sep)[0]!.startsWith('.');
}

/**
 * The place `path` really lies in (symlinks resolved), or undefined when it is in none.
 * Synchronous: esbuild's plugin hooks and the TypeScript compiler host call it for every file.
 */
export function placeOfSync(scope: ScriptScope, path: string): Place | undefined {
  for (const [place, root] of scope.roots) {
    try {
      const real = confineAbsoluteSync(root, path, 'import', path);
      return place === 'packages' && hiddenInPackages(realOr(root), real) ? undefined : place;
    } catch (e) {
      if (!Errors.pathEscapes.is(e)) throw e;
    }
  }
  return undefined;
}

/** `file` as users see it: "1/model.ts", "node_modules/pkg/index.js", "../../elsewhere". */
export function showPath(scope: ScriptScope, file: string): string {
  const abs = resolve(scope.modelDir, file);
  for (const [prefix, as] of scope.shown) {
    if (!isInside(prefix, abs)) continue;
    const rest = relative(prefix, abs).split(sep).join('/');
    if (as === '.') return rest || '.';
    return rest ? `${as}/${rest}` : as;
  }
  return abs;
}

/** Characters that may stand next to a path in a message (quotes, separators, spaces). */
const EDGE = "\\s'\"`:;,()=";

/** `text` with every absolute path under a known directory rewritten as `showPath` would. */
export function scrubPaths(scope: ScriptScope, text: string): string {
  let out = text;
  for (const [prefix, as] of scope.shown) {
    // Whole components only: '/tmp' must not eat part of '/var/tmp' or '/tmpfs'.
    const at = `(?<![^${EDGE}])${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    out = out.replace(new RegExp(`${at}/`, 'g'), as === '.' ? '' : `${as}/`);
    out = out.replace(new RegExp(`${at}(?![^${EDGE}])`, 'g'), as);
  }
  return out;
}
