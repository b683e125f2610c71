/**
 * A condition's problem is reported at the line and column of its token in the file, also when
 * the YAML spelling differs from the text (escapes, `''`, folded and block lines) and in JSON.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { at, compileYaml, errorsAt, langid, routedYaml, sentiment } from './control-flow-fixtures.js';

const steps = (when: string) => routedYaml(`  - model: langid
    inputs: { TEXT: TEXT }
    outputs: { LANGUAGE: lang, PROB: lang_p }
  - model: sentiment
    inputs: { TEXT: TEXT }
    outputs: { LABEL: LABEL }
    when: ${when}
`, '  - { name: LABEL, data_type: BYTES, dims: [1], optional: true }');

/** Position of the only error, which names the unknown tensor 'lnag'. */
function errorAt(text: string): string {
  const errs = errorsAt(compileYaml(text, langid, sentiment).problems);
  assert.equal(errs.length, 1, errs.join('\n'));
  assert.match(errs[0]!, /unknown tensor 'lnag'/);
  return errs[0]!.split(': ')[0]!;
}

test('a double-quoted condition with escapes before the token: the column counts the source spelling', () => {
  const text = steps(String.raw`"lang != \"\u00e9\" and lnag == 'en'"`);
  assert.equal(errorAt(text), at(text, 'lnag'));
});

test('a single-quoted condition with doubled quotes', () => {
  const text = steps(`'lang != ''x'' and lnag == ''en'''`);
  assert.equal(errorAt(text), at(text, 'lnag'));
});

test('a quoted condition folded over lines: the token\'s own line and column', () => {
  const text = steps(`"lang != 'x'
      and lnag == 'en'"`);
  assert.equal(errorAt(text), at(text, 'lnag'));
});

test('a literal block scalar (|) and a folded one (>): the token\'s own line and column', () => {
  for (const indicator of ['|', '>-']) {
    const text = steps(`${indicator}
      lang != 'x'
      and lnag == 'en'`);
    assert.equal(errorAt(text), at(text, 'lnag'), indicator);
  }
});

test('a folded block with a more-indented line is not rebuilt: the problem points at the scalar\'s start', () => {
  const text = steps(`>
      lang != 'x' and
        lnag == 'en'`);
  assert.equal(errorAt(text), at(text, '>'));
});

test('a plain (unquoted) condition keeps its exact column', () => {
  const text = steps(`lang != 'x' and lnag == 'en'`);
  assert.equal(errorAt(text), at(text, 'lnag'));
});
