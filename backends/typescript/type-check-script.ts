import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { PROJECT_NODE_MODULES } from './bundle-script.js';

const BLS_TYPES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'types', 'bls.d.ts');
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

function createHost(): ts.CompilerHost {
  const host = ts.createCompilerHost(OPTIONS, true);
  const base = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, lang, onError, fresh) => {
    if (fileName === GLOBALS_FILE) return ts.createSourceFile(fileName, GLOBALS, lang);
    const shared = fileName.includes('/node_modules/') || fileName === BLS_TYPES;
    if (shared) {
      const hit = sourceCache.get(fileName);
      if (hit) return hit;
    }
    const sf = base(fileName, lang, onError, fresh);
    if (sf && shared) sourceCache.set(fileName, sf);
    return sf;
  };
  const exists = host.fileExists.bind(host);
  host.fileExists = (f) => f === GLOBALS_FILE || exists(f);
  return host;
}

/**
 * Type-check a script against the `tributary/bls` types. Returns "file:line:col: TSnnnn message"
 * lines for problems in the model's own files (package declarations are not the author's to fix).
 */
export function typeCheckScript(modelFile: string, modelDir: string): string[] {
  const program = ts.createProgram({ rootNames: [modelFile, GLOBALS_FILE], options: OPTIONS, host: createHost() });
  const diags = ts.getPreEmitDiagnostics(program);
  const out: string[] = [];
  for (const d of diags) {
    if (d.category !== ts.DiagnosticCategory.Error) continue;
    const msg = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
    if (!d.file) { out.push(`TS${d.code}: ${msg}`); continue; }
    const rel = relative(modelDir, d.file.fileName);
    if (rel.startsWith('..') || rel.includes('node_modules')) continue;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
    out.push(`${rel}:${line + 1}:${character + 1}: TS${d.code}: ${msg}`);
  }
  return out;
}
