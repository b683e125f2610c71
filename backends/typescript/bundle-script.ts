import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Message } from 'esbuild';
import { sandboxPlugin } from './sandbox-plugin.js';

const here = dirname(fileURLToPath(import.meta.url));
const RUNTIME = join(here, 'bls');
/** The project's node_modules: scripts in a repository outside the project still find its packages. */
export const PROJECT_NODE_MODULES = join(here, '..', '..', 'node_modules');

export interface ScriptBundle {
  /** One classic script (IIFE) that installs the model on the isolate's global object. */
  code: string;
  /** Source map (v3 JSON) of `code`; sources are relative to `sourceRoot`. */
  map: string;
  sourceRoot: string;
  /** Name `code` is compiled under, as it appears in isolate stack traces. */
  filename: string;
}

export type BundleResult = { ok: true; bundle: ScriptBundle } | { ok: false; errors: string[] };

/** esbuild locations are relative to its working directory (the version dir); show them from the model dir. */
function formatMessage(m: Message, workDir: string, modelDir: string): string {
  const loc = m.location;
  if (!loc) return m.text;
  return `${relative(modelDir, resolve(workDir, loc.file))}:${loc.line}:${loc.column + 1}: ${m.text}`;
}

/**
 * Bundle `modelFile` with its pure-JS imports and the sandbox runtime into one script for
 * isolated-vm (which runs classic scripts, hence IIFE). The source map stays on the host: it only
 * serves to map isolate stack traces back to model.ts:line:col.
 */
export async function bundleScript(modelFile: string, modelDir: string): Promise<BundleResult> {
  const versionDir = dirname(modelFile);
  const entry = [
    `import ${JSON.stringify(join(RUNTIME, 'sandbox-globals.ts'))};`,
    `import Model from ${JSON.stringify(modelFile)};`,
    `import { install } from ${JSON.stringify(join(RUNTIME, 'entry.ts'))};`,
    'install(Model);',
  ].join('\n');
  try {
    const r = await build({
      stdin: { contents: entry, resolveDir: versionDir, sourcefile: 'tributary-entry.ts', loader: 'ts' },
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'neutral',
      target: 'es2022',
      mainFields: ['module', 'main'],
      conditions: ['import', 'module', 'default'],
      nodePaths: [PROJECT_NODE_MODULES],
      outfile: join(versionDir, 'model.bundle.js'),
      absWorkingDir: versionDir,
      sourcemap: 'external',
      sourcesContent: false,
      legalComments: 'none',
      logLevel: 'silent',
      plugins: [sandboxPlugin(join(RUNTIME, 'index.ts'))],
    });
    const js = r.outputFiles.find((f) => f.path.endsWith('.js'));
    const map = r.outputFiles.find((f) => f.path.endsWith('.map'));
    if (!js || !map) return { ok: false, errors: ['esbuild produced no output'] };
    return { ok: true, bundle: { code: js.text, map: map.text, sourceRoot: versionDir, filename: 'file:///model.bundle.js' } };
  } catch (e) {
    const errs = (e as { errors?: Message[] }).errors;
    if (Array.isArray(errs) && errs.length) return { ok: false, errors: errs.map((m) => formatMessage(m, versionDir, modelDir)) };
    return { ok: false, errors: [(e as Error).message] };
  }
}
