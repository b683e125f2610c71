import { dirname, join, resolve } from 'node:path';
import { build, type Message } from 'esbuild';
import { ENTRY, ENTRY_NS, REFUSED, sandboxPlugin } from './sandbox-plugin.js';
import { PROJECT_NODE_MODULES, RUNTIME_DIR, scriptScope, scrubPaths, showPath, type ScriptScope } from './script-scope.js';


export interface ScriptBundle {
  /** One classic script (IIFE) that installs the model on the isolate's global object. */
  code: string;
  /** Source map (v3 JSON) of `code`; sources are relative to `sourceRoot`. */
  map: string;
  sourceRoot: string;
  /** Name `code` is compiled under, as it appears in isolate stack traces. */
  filename: string;
}

/** `refused`: some import was refused for reading outside the model directory and the packages. */
export type BundleResult = { ok: true; bundle: ScriptBundle } | { ok: false; errors: string[]; refused: boolean };

/**
 * The tsconfig esbuild compiles with. Given, so esbuild reads no tsconfig.json of its own: one in
 * the model directory or any directory above it could otherwise redirect imports anywhere
 * (`paths`, `baseUrl`, `extends` naming a file outside). A model's own tsconfig.json is ignored.
 */
const TSCONFIG = { compilerOptions: {} };

/** esbuild locations are relative to its working directory (the version dir); show them from the model dir. */
function formatMessage(m: Message, workDir: string, scope: ScriptScope): string {
  // Refusals quote the import as written (and name no other path): shown unchanged.
  const text = m.detail === REFUSED ? m.text : scrubPaths(scope, m.text);
  const loc = m.location;
  if (!loc) return text;
  // esbuild names modules without a file in angle brackets (<data:...>); the entry is ours.
  const file = loc.namespace === ENTRY_NS ? `${ENTRY}.ts` : loc.file.startsWith('<') ? loc.file : showPath(scope, resolve(workDir, loc.file));
  return `${file}:${loc.line}:${loc.column + 1}: ${text}`;
}

/**
 * Bundle `modelFile` with its pure-JS imports and the sandbox runtime into one script for
 * isolated-vm (which runs classic scripts, hence IIFE). The source map stays on the host: it only
 * serves to map isolate stack traces back to model.ts:line:col. What the bundle may contain is
 * decided by sandbox-plugin.ts.
 */
export async function bundleScript(modelFile: string, modelDir: string): Promise<BundleResult> {
  const versionDir = dirname(modelFile);
  const scope = scriptScope(modelDir);
  const entry = [
    `import ${JSON.stringify(join(RUNTIME_DIR, 'sandbox-globals.ts'))};`,
    `import Model from ${JSON.stringify(modelFile)};`,
    `import { install } from ${JSON.stringify(join(RUNTIME_DIR, 'entry.ts'))};`,
    'install(Model);',
  ].join('\n');
  try {
    const r = await build({
      entryPoints: [ENTRY],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'neutral',
      target: 'es2022',
      mainFields: ['module', 'main'],
      conditions: ['import', 'module', 'default'],
      nodePaths: [PROJECT_NODE_MODULES],
      tsconfigRaw: TSCONFIG,
      outfile: join(versionDir, 'model.bundle.js'),
      absWorkingDir: versionDir,
      sourcemap: 'external',
      sourcesContent: false,
      legalComments: 'none',
      logLevel: 'silent',
      plugins: [sandboxPlugin({ scope, runtimeEntry: join(RUNTIME_DIR, 'index.ts'), entry: { contents: entry, resolveDir: versionDir } })],
    });
    const js = r.outputFiles.find((f) => f.path.endsWith('.js'));
    const map = r.outputFiles.find((f) => f.path.endsWith('.map'));
    if (!js || !map) return { ok: false, errors: ['esbuild produced no output'], refused: false };
    return { ok: true, bundle: { code: js.text, map: map.text, sourceRoot: versionDir, filename: 'file:///model.bundle.js' } };
  } catch (e) {
    const errs = (e as { errors?: Message[] }).errors;
    if (Array.isArray(errs) && errs.length) {
      // A glob reaching outside fails once per matching file, all at the same import: say it once.
      const lines = [...new Set(errs.map((m) => formatMessage(m, versionDir, scope)))];
      return { ok: false, errors: lines, refused: errs.some((m) => m.detail === REFUSED) };
    }
    return { ok: false, errors: [scrubPaths(scope, (e as Error).message)], refused: false };
  }
}
