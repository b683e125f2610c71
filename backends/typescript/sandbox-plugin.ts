import { readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Loader, OnResolveResult, PartialMessage, Plugin } from 'esbuild';
import { Errors } from '../../src/errors.js';
import { isInside } from '../../src/paths/index.js';
import { findComputedImports } from './find-computed-imports.js';
import { PROJECT_ROOT, placeOfSync, type Place, type ScriptScope } from './script-scope.js';

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, m.split('/')[0]]));

/** True for `fs`, `node:fs`, `fs/promises`, ... */
function isNodeBuiltin(spec: string): boolean {
  if (spec.startsWith('node:')) return true;
  return BUILTINS.has(spec) || BUILTINS.has(spec.split('/')[0]);
}

/** The bundle's entry point: a module only this plugin can produce (no file can pose as it). */
export const ENTRY = 'tributary-entry';
export const ENTRY_NS = 'tributary-entry';
/** `detail` of the messages that refuse a file, so the backend can report them as such. */
export const REFUSED = 'tributary-import-refused';
/** Marks our own `build.resolve` calls, which must reach esbuild's resolver, not this hook again. */
const SELF = { self: true };

const SCRIPT_LOADERS: Record<string, Loader> = {
  ts: 'ts', mts: 'ts', cts: 'ts', tsx: 'tsx', js: 'js', mjs: 'js', cjs: 'js', jsx: 'jsx',
};

const isRelative = (spec: string) => spec === '.' || spec === '..' || spec.startsWith('./') || spec.startsWith('../');
const quote = (spec: string) => `'${JSON.stringify(spec).slice(1, -1).slice(0, 300)}'`;
const BY_RELATIVE_PATH = "import the model directory's own files by a relative path ('./helper.js')";

function refuse(spec: string, why: string, inside: string): OnResolveResult {
  return { errors: [{ text: Errors.pathEscapes('import', quote(spec), why, inside).message, detail: REFUSED }] };
}

export interface SandboxPluginOptions {
  scope: ScriptScope;
  /** `tributary/bls`: the sandbox runtime's entry file. */
  runtimeEntry: string;
  /** Source of the entry module, and the directory its imports resolve from. */
  entry: { contents: string; resolveDir: string };
}

/**
 * esbuild resolution for sandboxed scripts. The isolate has no fs, so the bundle is all a script
 * can ever read; this plugin makes sure the bundler reads nothing a script could not read anyway:
 * - relative imports stay inside the importing file's place (the model directory, the installed
 *   packages, or the runtime), real paths compared, so a symlink cannot lead out;
 * - bare imports resolve to installed packages: the server's node_modules, or a node_modules
 *   inside the model directory (a model may ship pure-JS packages of its own: they are the
 *   author's files, as readable to the script as its args.files), or to the model directory's
 *   own files (package.json `imports`); never to a node_modules above the model directory;
 * - absolute paths and file: URLs are refused outright, whatever import attribute asks for them;
 * - every file esbuild loads is checked again, since glob imports skip the resolve hooks;
 * - Node built-ins and native addons cannot exist in an isolate.
 * Each refusal names the importing file, line and column (esbuild adds the import's location).
 */
export function sandboxPlugin(options: SandboxPluginOptions): Plugin {
  const { scope } = options;
  // Synchronous and remembered per bundle: each file is looked up several times (as importer,
  // as result, at load), and the asynchronous form costs a thread-pool round trip per lookup.
  const places = new Map<string, Place | undefined>();
  const placeOf = (path: string): Place | undefined => {
    if (!places.has(path)) places.set(path, placeOfSync(scope, path));
    return places.get(path);
  };
  return {
    name: 'tributary-sandbox',
    setup(build) {
      build.onResolve({ filter: /^tributary-entry$/ }, (args) =>
        (args.kind === 'entry-point' ? { path: `${ENTRY}.ts`, namespace: ENTRY_NS } : undefined));
      build.onLoad({ filter: /.*/, namespace: ENTRY_NS }, () => ({ ...options.entry, loader: 'ts' }));
      build.onResolve({ filter: /^tributary\/bls$/ }, () => ({ path: options.runtimeEntry }));

      build.onResolve({ filter: /.*/ }, async (args): Promise<OnResolveResult | undefined> => {
        if (args.pluginData === SELF || args.kind === 'entry-point') return undefined;
        const spec = args.path;
        if (isNodeBuiltin(spec)) {
          return { errors: [{ text: `import '${spec}': Node built-in modules are not available in the sandbox (no fs, net, process, child_process); pass data through the model directory's files (initialize args.files) or call another model` }] };
        }
        if (/\.node$/.test(spec)) {
          return { errors: [{ text: `import '${spec}': native addons (.node) cannot run in the sandbox; use a pure-JS package` }] };
        }
        const fromEntry = args.namespace === ENTRY_NS;
        if (!fromEntry) {
          if (/^file:/i.test(spec)) return refuse(spec, `file: URLs are not followed; ${BY_RELATIVE_PATH}`, 'the model directory');
          if (isAbsolute(spec) || /^[A-Za-z]:[\\/]/.test(spec) || spec.startsWith('\\')) {
            return refuse(spec, `it is an absolute path; ${BY_RELATIVE_PATH}`, 'the model directory');
          }
        }
        if (!fromEntry && args.namespace !== 'file') return refuse(spec, 'imports inside a data: URL module are not followed', 'the model directory');
        const from: Place | 'entry' | undefined = fromEntry ? 'entry' : placeOf(args.importer);
        if (!from) return refuse(spec, 'the importing file lies outside the model directory', 'the model directory');
        const relative = isRelative(spec);
        const allowed: Place[] = from === 'entry' ? ['model', 'runtime']
          : from === 'runtime' ? ['runtime']
            : relative ? [from]
              : from === 'model' ? ['model', 'packages'] : ['packages'];
        const ask = (resolveDir: string) => build.resolve(spec, {
          kind: args.kind, importer: args.importer, namespace: 'file', resolveDir, with: args.with, pluginData: SELF,
        });
        let r = await ask(args.resolveDir);
        if (r.errors.length) return { errors: r.errors, warnings: r.warnings };
        if (r.external || r.namespace !== 'file') return { path: r.path, external: r.external, namespace: r.namespace, suffix: r.suffix, pluginData: r.pluginData };
        let at = placeOf(r.path);
        if (!relative && !fromEntry && !(at && allowed.includes(at))) {
          // esbuild looks in every node_modules above the model before the server's own; one
          // there (a shared /tmp/node_modules, say) is not an installed package: use the server's.
          const again = await ask(PROJECT_ROOT);
          const atAgain = again.errors.length || again.external || again.namespace !== 'file' ? undefined : placeOf(again.path);
          if (atAgain && allowed.includes(atAgain)) { r = again; at = atAgain; }
        }
        if (!at || !allowed.includes(at)) return refuse(spec, why(spec, from, relative, args.resolveDir), where(from, relative));
        return { path: r.path, namespace: 'file', sideEffects: r.sideEffects, suffix: r.suffix, pluginData: r.pluginData };
      });

      build.onLoad({ filter: /.*/, namespace: 'file' }, async (args) => {
        if (/\.node$/.test(args.path)) {
          return { errors: [{ text: `'${args.path.slice(args.path.lastIndexOf('/') + 1)}' is a native addon (.node); it cannot run in the sandbox, use a pure-JS package` }] };
        }
        const at = placeOf(args.path);
        if (!at) {
          return { errors: [{ detail: REFUSED, text: 'a file outside the model directory and the installed packages was reached while bundling (through a computed import path or a symbolic link) and is refused; import each file by a literal relative path' }] };
        }
        const loader = SCRIPT_LOADERS[args.path.slice(args.path.lastIndexOf('.') + 1)];
        if (at !== 'model' || !loader || Object.keys(args.with).length) return undefined;
        const contents = await readFile(args.path, 'utf8');
        const errors: PartialMessage[] = [];
        for (const c of findComputedImports(contents, args.path)) {
          // A pattern below its file is esbuild's to expand, unless the directory it walks is a
          // symlink out (the walk itself would then list a directory outside).
          if (c.walks !== undefined && placeOf(resolve(dirname(args.path), c.walks)) === 'model') continue;
          const why = c.walks === undefined
            ? "its path is computed (a template or '+') and may leave the importing file's directory, which makes the bundler read every matching file there; import each file by a literal relative path, or read data from initialize args.files"
            : `its path is computed and the directory it searches ('${c.walks}') leaves the model directory through a symbolic link`;
          errors.push({
            detail: REFUSED,
            text: Errors.pathEscapes('import', c.text, why, 'the model directory').message,
            location: { file: args.path, line: c.line, column: c.column, lineText: c.lineText },
          });
        }
        return errors.length ? { errors } : { contents, loader };
      });
    },
  };

  function why(spec: string, from: Place | 'entry', relative: boolean, resolveDir: string): string {
    if (from === 'entry') return 'the script file lies outside the model directory';
    if (!relative) return "a package import must resolve to an installed package (the server's node_modules, or a node_modules inside the model directory) and this one does not";
    if (from !== 'model') return 'it leaves its package';
    return isInside(scope.modelDir, resolve(resolveDir, spec)) ? 'it leaves the model directory through a symbolic link' : 'it leaves the model directory';
  }

  function where(from: Place | 'entry', relative: boolean): string {
    if (from === 'packages' || from === 'runtime') return 'the installed packages';
    return relative ? 'the model directory' : 'the model directory or an installed package';
  }
}
