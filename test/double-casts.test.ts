/**
 * `x as unknown as T` switches the type checker off for that value. src/ keeps at most five, where a
 * library's declared types cannot say what it hands back (grpc-js's loaded package definition,
 * fastify's server under TLS, grpc-js's untyped handler union); everywhere else a typed helper,
 * a generic or a guard says it (src/tensor/copy-elements.ts, ItemList.has, the self-cancelling
 * TimerHandle). Counted on the syntax tree, so comments and strings do not count.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MAX_DOUBLE_CASTS = 5;

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return tsFiles(rel);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** `file:line` of every `as unknown as` in the source text. */
function doubleCasts(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    let inner = ts.isAsExpression(node) ? node.expression : undefined;
    while (inner && ts.isParenthesizedExpression(inner)) inner = inner.expression;
    if (inner && ts.isAsExpression(inner) && inner.type.kind === ts.SyntaxKind.UnknownKeyword) {
      found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test(`src/ has at most ${MAX_DOUBLE_CASTS} \`as unknown as\` casts`, () => {
  const found = tsFiles('src').flatMap((f) => doubleCasts(f, readFileSync(join(ROOT, f), 'utf8')));
  assert.ok(found.length <= MAX_DOUBLE_CASTS, `${found.length} casts:\n${found.join('\n')}`);
});

test('the count sees a double cast, parenthesized or not, and not one in a comment or string', () => {
  const text = "const a = (x as unknown as number);\nconst b = y as unknown as string;\n// z as unknown as T\nconst c = 'as unknown as';\nconst d = w as number;\nconst e = (v as unknown) as T;\n";
  assert.deepEqual(doubleCasts('t.ts', text), ['t.ts:1', 't.ts:2', 't.ts:6']);
});
