import ts from 'typescript';

export interface ComputedImport {
  /** 1-based line, 0-based column (esbuild's convention for message locations). */
  line: number;
  column: number;
  lineText: string;
  /** The argument's source text, shortened. */
  text: string;
  /**
   * The directory esbuild will walk (the pattern's literal part up to its last '/' before the
   * first wildcard) when the pattern stays below the importing file; undefined when it does not.
   */
  walks?: string;
}

/** Cheap pre-check: files without a dynamic import or require call are not parsed at all. */
const MAYBE = /\b(?:import|require)\s*\(/;

const shorten = (s: string) => (s.length > 80 ? `${s.slice(0, 79)}…` : s);

function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)
    || ts.isNonNullExpression(e) || ts.isTypeAssertionExpression(e)) e = e.expression;
  return e;
}

/**
 * The glob pattern esbuild derives from a computed path: literals kept (adjacent ones fold, so
 * '.' + '/' is './'), every other operand a wildcard (written '*').
 */
function pattern(e: ts.Expression): string {
  e = unwrap(e);
  if (ts.isStringLiteralLike(e)) return e.text;
  if (ts.isTemplateExpression(e)) return e.head.text + e.templateSpans.map((s) => pattern(s.expression) + s.literal.text).join('');
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) return pattern(e.left) + pattern(e.right);
  return '*';
}

/**
 * `import(...)` and `require(...)` calls whose path is computed (a template with substitutions or
 * a `+` concatenation). esbuild turns such a call into a glob import: it walks every directory
 * under the pattern's literal prefix and bundles each matching file, without calling the plugins'
 * resolve hooks (measured with esbuild 0.28: `import(\`../../${x}.json\`)` bundled files two
 * levels above the model, subdirectories included). A pattern that starts with './' and holds no
 * '..' stays below its file (`walks` says where); the caller refuses the others.
 */
export function findComputedImports(source: string, fileName: string): ComputedImport[] {
  if (!MAYBE.test(source)) return [];
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true);
  const found: ComputedImport[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const callee = node.expression;
      const loads = callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require');
      const arg = unwrap(node.arguments[0]!);
      const computed = ts.isTemplateExpression(arg)
        || (ts.isBinaryExpression(arg) && arg.operatorToken.kind === ts.SyntaxKind.PlusToken);
      const glob = computed ? pattern(arg) : '';
      const below = glob.startsWith('./') && !glob.split(/[/\\]/).includes('..');
      if (loads && computed) {
        const literal = glob.slice(0, glob.indexOf('*') < 0 ? undefined : glob.indexOf('*'));
        const start = node.arguments[0]!.getStart(sf);
        const { line, character } = sf.getLineAndCharacterOfPosition(start);
        const lineStart = sf.getPositionOfLineAndCharacter(line, 0);
        const lineEnd = source.indexOf('\n', lineStart);
        found.push({
          line: line + 1, column: character,
          lineText: source.slice(lineStart, lineEnd < 0 ? undefined : lineEnd),
          text: shorten(node.arguments[0]!.getText(sf).replace(/\s+/g, ' ')),
          ...(below ? { walks: literal.slice(0, literal.lastIndexOf('/') + 1) } : {}),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}
