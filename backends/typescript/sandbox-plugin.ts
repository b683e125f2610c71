import { builtinModules } from 'node:module';
import type { Plugin } from 'esbuild';

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, m.split('/')[0]]));

/** True for `fs`, `node:fs`, `fs/promises`, ... */
export function isNodeBuiltin(spec: string): boolean {
  if (spec.startsWith('node:')) return true;
  return BUILTINS.has(spec) || BUILTINS.has(spec.split('/')[0]);
}

/**
 * esbuild resolution for sandboxed scripts: `tributary/bls` is the sandbox runtime; Node built-ins
 * and native addons cannot exist in an isolate, so they fail the bundle with the importing file,
 * line and column (esbuild reports the location of the import) rather than failing at run time.
 */
export function sandboxPlugin(runtimeEntry: string): Plugin {
  return {
    name: 'tributary-sandbox',
    setup(build) {
      build.onResolve({ filter: /^tributary\/bls$/ }, () => ({ path: runtimeEntry }));
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (isNodeBuiltin(args.path)) {
          return { errors: [{ text: `import '${args.path}': Node built-in modules are not available in the sandbox (no fs, net, process, child_process); pass data through the model directory's files (initialize args.files) or call another model` }] };
        }
        if (/\.node$/.test(args.path)) {
          return { errors: [{ text: `import '${args.path}': native addons (.node) cannot run in the sandbox; use a pure-JS package` }] };
        }
        return undefined;
      });
      // A package may reach a native addon through a path that only resolves to a .node file.
      build.onLoad({ filter: /\.node$/ }, (args) => ({
        errors: [{ text: `'${args.path}' is a native addon (.node); it cannot run in the sandbox, use a pure-JS package` }],
      }));
    },
  };
}
