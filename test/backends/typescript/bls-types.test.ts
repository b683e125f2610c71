/**
 * Runs bls-types-check.ts through the compiler (the same checks `tsc --noEmit` makes in
 * `npm test`): clean against types/bls.d.ts as it is, and failing on the right check for each
 * drift written into a copy of the declaration.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ModelError } from '../../../backends/typescript/bls/model-error.js';
import { STATUS_TABLE } from '../../../src/protocol/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CHECK = join(ROOT, 'test/backends/typescript/bls-types-check.ts');
const DECL = join(ROOT, 'types/bls.d.ts');

function projectOptions(): ts.CompilerOptions {
  const file = join(ROOT, 'tsconfig.json');
  const { config } = ts.readConfigFile(file, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config, ts.sys, ROOT, undefined, file).options;
}

/** Compile the check file with `decl` standing in for types/bls.d.ts; the failing check lines. */
function failingChecks(decl: string, old?: ts.Program): { lines: string[]; program: ts.Program } {
  const options = projectOptions();
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, onError, fresh) => (resolve(name) === DECL
    ? ts.createSourceFile(name, decl, lang)
    : getSourceFile(name, lang, onError, fresh));
  const program = ts.createProgram({ rootNames: [CHECK], options, host, ...(old ? { oldProgram: old } : {}) });
  const mine = new Set([CHECK, DECL]);
  const lines = ts.getPreEmitDiagnostics(program)
    .filter((d) => d.file && mine.has(resolve(d.file.fileName)))
    .map((d) => {
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${d.file!.fileName.slice(ROOT.length + 1)}: ${d.file!.text.split('\n')[line]!.trim()} -- ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
  return { lines, program };
}

function drift(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `types/bls.d.ts no longer contains '${from}'; update the drift`);
  return text.replace(from, to);
}

test('types/bls.d.ts and the sandbox runtime agree, and each kind of drift is caught', () => {
  const decl = readFileSync(DECL, 'utf8');
  const clean = failingChecks(decl);
  assert.deepEqual(clean.lines, []);

  let drifted = decl;
  drifted = drift(drifted, '  readonly code?: string;\n}', '  readonly code?: string;\n  static wrap(e: unknown): ModelError;\n}');
  drifted = drift(drifted, '  hasInput(name: string): boolean;\n', '');
  drifted = drift(drifted, '  priority?: number;', '  priority: number;');
  drifted = drift(drifted, '  verbose(message: string): void;', '  verbose(message: string): void;\n  debug(message: string): void;');
  drifted = drift(drifted, '  constructor(init?: InferenceResponseInit);', '  constructor(init: InferenceResponseInit);');
  const failing = failingChecks(drifted, clean.program).lines.map((l) => l.replace(/ -- .*/, ''));
  const at = (check: string) => `test/backends/typescript/bls-types-check.ts: ${check}`;
  // A drifted Request also drifts InferenceRequestInit (its `parent`) and so InferenceRequest's constructor.
  assert.deepEqual(failing.sort(), [
    at('Expect<Equal<CtorArgs<typeof Rt.InferenceRequest>, CtorArgs<typeof Decl.InferenceRequest>>>,'),
    at('Expect<Equal<CtorArgs<typeof Rt.InferenceResponse>, CtorArgs<typeof Decl.InferenceResponse>>>,'),
    at('Expect<Equal<Shape<Rt.InferenceRequestInit>, Shape<Decl.InferenceRequestInit>>>,'),
    at('Expect<Equal<Shape<Rt.Logger>, Shape<Decl.Logger>>>,'),
    at('Expect<Equal<Shape<Rt.Request>, Shape<Decl.Request>>>,'),
    at('Expect<Equal<Shape<typeof Rt.logger>, Shape<typeof Decl.logger>>>,'),
    at('Expect<Equal<Statics<typeof Rt.ModelError, \'fromWire\'>, Statics<typeof Decl.ModelError>>>,'),
  ].sort());
});

// The sandbox keeps its own copy of the kind list (a value import would bundle the error catalog
// into every script); the status table has a row for every kind, so it checks that copy.
test("the sandbox's ModelError keeps every server error kind and only those", () => {
  const kinds = Object.keys(STATUS_TABLE);
  assert.ok(kinds.length >= 8);
  for (const kind of kinds) assert.equal(new ModelError('m', kind as ModelError['kind']).kind, kind);
  assert.equal(new ModelError('m', 'NOT_A_KIND' as ModelError['kind']).kind, 'INTERNAL');
});
