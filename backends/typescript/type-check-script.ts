import { resolve } from 'node:path';
import ts from 'typescript';
import { BLS_TYPES, PROJECT_NODE_MODULES, placeOfSync, scriptScope, scrubPaths, showPath, type ScriptScope } from './script-scope.js';

const GLOBALS_FILE = '/__tributary__/sandbox-globals.d.ts';

/** The web globals the sandbox provides (sandbox-globals.ts); the check uses no DOM or Node types. */
const GLOBALS = `
interface Console { log(...a: unknown[]): void; info(...a: unknown[]): void; warn(...a: unknown[]): void; error(...a: unknown[]): void; debug(...a: unknown[]): void; trace(...a: unknown[]): void }
declare var console: Console;
declare class TextEncoder { readonly encoding: string; encode(input?: string): Uint8Array; encodeInto(s: string, dst: Uint8Array): { read: number; written: number } }
declare class TextDecoder { constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }); readonly encoding: string; decode(input?: ArrayBufferView | ArrayBuffer): string }
`;

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2023.d.ts'],
  types: [],
  skipLibCheck: true,
  allowJs: true,
  checkJs: false,
  resolveJsonModule: true,
  paths: { 'tributary/bls': [BLS_TYPES], '*': [`${PROJECT_NODE_MODULES}/*`] },
};

/** Library and package declarations never change while the server runs: parse them once. */
const sourceCache = new Map<string, ts.SourceFile>();

/**
 * A compiler host that sees only what a script may import: the model directory, the installed
 * packages (TypeScript's own lib files among them) and the bls types. Anything else does not
 * exist for it, so `import type`, `/// <reference path>` or a type query naming a file outside
 * cannot pull that file's contents into a diagnostic (a literal type would quote them).
 */
function createHost(scope: ScriptScope): ts.CompilerHost {
  const host = ts.createCompilerHost(OPTIONS, true);
  const seen = new Map<string, boolean>();
  const visible = (p: string): boolean => {
    if (p === GLOBALS_FILE) return true;
    let ok = seen.get(p);
    if (ok === undefined) {
      const abs = resolve(p);
      ok = abs === BLS_TYPES || placeOfSync(scope, abs) !== undefined;
      seen.set(p, ok);
    }
    return ok;
  };
  const base = host.getSourceFile.bind(host);
  const readFile = host.readFile.bind(host);
  const directoryExists = host.directoryExists?.bind(host);
  const getDirectories = host.getDirectories?.bind(host);
  const realpath = host.realpath?.bind(host);
  host.readFile = (f) => (visible(f) ? readFile(f) : undefined);
  if (directoryExists) host.directoryExists = (d) => visible(d) && directoryExists(d);
  if (getDirectories) host.getDirectories = (d) => (visible(d) ? getDirectories(d) : []);
  if (realpath) host.realpath = (p) => (visible(p) ? realpath(p) : p);
  host.getSourceFile = (fileName, lang, onError, fresh) => {
    if (fileName === GLOBALS_FILE) return ts.createSourceFile(fileName, GLOBALS, lang);
    if (!visible(fileName)) return undefined;
    // Only the server's own declarations: an upload's node_modules dies with its temporary directory.
    const shared = fileName.startsWith(`${PROJECT_NODE_MODULES}/`) || fileName === BLS_TYPES;
    if (shared) {
      const hit = sourceCache.get(fileName);
      if (hit) return hit;
    }
    const sf = base(fileName, lang, onError, fresh);
    if (sf && shared) sourceCache.set(fileName, sf);
    return sf;
  };
  const exists = host.fileExists.bind(host);
  host.fileExists = (f) => f === GLOBALS_FILE || (visible(f) && exists(f));
  return host;
}

/**
 * Type-check a script against the `tributary/bls` types. Returns "file:line:col: TSnnnn message"
 * lines for problems in the model's own files (package declarations are not the author's to fix).
 */
export function typeCheckScript(modelFile: string, modelDir: string): string[] {
  const scope = scriptScope(modelDir);
  const program = ts.createProgram({ rootNames: [modelFile, GLOBALS_FILE], options: OPTIONS, host: createHost(scope) });
  const diags = ts.getPreEmitDiagnostics(program);
  const out: string[] = [];
  for (const d of diags) {
    if (d.category !== ts.DiagnosticCategory.Error) continue;
    const msg = scrubPaths(scope, ts.flattenDiagnosticMessageText(d.messageText, '\n  '));
    if (!d.file) { out.push(`TS${d.code}: ${msg}`); continue; }
    const rel = showPath(scope, d.file.fileName);
    if (rel.startsWith('..') || rel.startsWith('<') || rel.includes('node_modules') || rel.startsWith('tributary/')) continue;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
    out.push(`${rel}:${line + 1}:${character + 1}: TS${d.code}: ${msg}`);
  }
  return out;
}
