// Module hooks that run the project's TypeScript sources as they are (no build step): a `.js`
// import that names a `.ts` source (TypeScript's NodeNext spelling) loads the `.ts`, and a `.ts`
// module is stripped of its types by esbuild, with an inline source map for stack traces.
//
// Why not tsx's loader, which the tests use: it transforms with esbuild's `keepNames`, which wraps
// every function and closure the code creates in a call that redefines its `name` property. On
// the request path that is several `Object.defineProperty` calls per request (a closure per
// callback); measured, see docs/PERFORMANCE.md ("Cost per request at the edges").
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

// The options of tsconfig.json that change emitted JavaScript (the rest only check types).
const TSCONFIG = { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true, target: 'ES2022' } };
const TARGET = `node${process.versions.node}`;

export function resolve(specifier, context, next) {
  const parent = context.parentURL;
  // Only a TypeScript module spells a .ts source as .js; a .js module's import means the .js file.
  // (Installed as a dependency, our sources live under another project's node_modules: no path rule.)
  if (parent?.startsWith('file:') && parent.endsWith('.ts') && specifier.endsWith('.js') && (specifier.startsWith('./') || specifier.startsWith('../'))) {
    const ts = new URL(`${specifier.slice(0, -3)}.ts`, parent);
    if (existsSync(fileURLToPath(ts))) return { url: ts.href, format: 'module', shortCircuit: true };
  }
  return next(specifier, context);
}

export function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const file = fileURLToPath(url);
  const { code } = transformSync(readFileSync(file, 'utf8'), {
    loader: 'ts', format: 'esm', target: TARGET, sourcemap: 'inline', sourcefile: file, tsconfigRaw: TSCONFIG,
  });
  return { format: 'module', source: code, shortCircuit: true };
}
