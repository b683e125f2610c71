/**
 * Where each character of a YAML (or JSON) scalar's decoded text was written: the source offset
 * of decoded character i, and one past the end. The tree keeps the decoded text, so a problem at
 * an offset inside it (a condition's token) needs this to land on its own column when the
 * spelling differs from the text: escapes (`\"`, `\u00e9`), a quoted `''`, folded or block lines.
 *
 * The mapping is rebuilt from the source by YAML 1.2's rules for each style and used only when it
 * reproduces the parser's own decoded value; otherwise (a style these rules do not cover, such as
 * a block scalar with more-indented lines folded) the caller falls back to the scalar's start.
 */

interface Unit { readonly at: number; readonly text: string }

const SIMPLE_ESCAPES: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b',
  ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029',
};
const HEX_ESCAPES: Record<string, number> = { x: 2, u: 4, U: 8 };

/** Offsets for decoded `value`, or undefined when they cannot be rebuilt exactly. */
export function scalarOffsets(src: string, start: number, end: number, type: string | undefined, value: string): number[] | undefined {
  let units: Unit[] | undefined;
  if (type === 'QUOTE_DOUBLE') units = flow(src, start + 1, end - 1, true);
  else if (type === 'QUOTE_SINGLE') units = flow(src, start + 1, end - 1, false);
  else if (type === 'PLAIN' || type === undefined) units = flow(src, start, end, false);
  else if (type === 'BLOCK_LITERAL' || type === 'BLOCK_FOLDED') units = block(src, start, end, type === 'BLOCK_FOLDED');
  if (!units) return undefined;
  const offsets: number[] = [];
  let text = '';
  for (const u of units) {
    for (let i = 0; i < u.text.length; i++) offsets.push(u.at);
    text += u.text;
  }
  // Block scalars' chomping only changes the trailing line breaks, which no offset points into.
  const same = text === value || (type?.startsWith('BLOCK') && text.trimEnd() === value.trimEnd());
  if (!same) return undefined;
  offsets.length = value.length;
  for (let i = 0; i < value.length; i++) offsets[i] ??= end;
  offsets.push(units.length ? Math.min(end, units[units.length - 1]!.at + 1) : start);
  return offsets;
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/** A quoted or plain scalar: escapes (double-quoted), `''` (single-quoted), line folding. */
function flow(src: string, from: number, to: number, double: boolean): Unit[] | undefined {
  const units: Unit[] = [];
  let i = from;
  while (i < to) {
    const c = src[i]!;
    if (c === '\n' || c === '\r') {
      // Folding: trailing blanks before the break go, a single break is a space, n+1 breaks are n newlines.
      while (units.length && isBlank(units[units.length - 1]!.text)) units.pop();
      let breaks = 0;
      const at = i;
      while (i < to && (src[i] === '\n' || src[i] === '\r' || isBlank(src[i]))) { if (src[i] === '\n') breaks++; i++; }
      units.push({ at, text: breaks > 1 ? '\n'.repeat(breaks - 1) : ' ' });
      continue;
    }
    if (double && c === '\\') {
      const e = src[i + 1];
      if (e === '\n' || e === '\r') { // an escaped line break joins the lines with nothing
        i += 2;
        while (i < to && (src[i] === '\n' || isBlank(src[i]))) i++;
        continue;
      }
      const hex = e === undefined ? undefined : HEX_ESCAPES[e];
      if (hex !== undefined) {
        const code = Number.parseInt(src.slice(i + 2, i + 2 + hex), 16);
        if (Number.isNaN(code)) return undefined;
        units.push({ at: i, text: String.fromCodePoint(code) });
        i += 2 + hex;
        continue;
      }
      const simple = e === undefined ? undefined : SIMPLE_ESCAPES[e];
      if (simple === undefined) return undefined;
      units.push({ at: i, text: simple });
      i += 2;
      continue;
    }
    if (!double && c === "'" && src[i + 1] === "'") {
      units.push({ at: i, text: "'" });
      i += 2;
      continue;
    }
    // A surrogate pair is two UTF-16 units of the decoded text, each at its own offset.
    units.push({ at: i, text: c });
    i++;
  }
  return units;
}

/** `|` or `>` and its header, then lines at the content indentation; `>` folds single breaks into spaces. */
function block(src: string, from: number, to: number, folded: boolean): Unit[] | undefined {
  const header = src.indexOf('\n', from);
  if (header < 0 || header >= to) return [];
  // An explicit indentation indicator is relative to the parent's indentation: not rebuilt here.
  if (/[1-9]/.test(src.slice(from, header))) return undefined;
  const lines: { at: number; text: string }[] = [];
  for (let i = header + 1; i < to;) {
    const nl = src.indexOf('\n', i);
    const stop = nl < 0 || nl > to ? to : nl;
    lines.push({ at: i, text: src.slice(i, stop).replace(/\r$/, '') });
    i = stop + 1;
  }
  const first = lines.find((l) => l.text.trim() !== '');
  if (!first) return [];
  const indent = first.text.length - first.text.trimStart().length;
  const units: Unit[] = [];
  let prevContent = false;
  let pendingBreaks = 0;
  let lastBreakAt = header;
  for (const l of lines) {
    if (l.text.trim() === '') { pendingBreaks++; continue; }
    // More-indented lines keep their breaks in a folded scalar: not rebuilt here (the caller falls back).
    if (folded && isBlank(l.text[indent])) return undefined;
    if (prevContent) {
      units.push({ at: lastBreakAt, text: folded ? (pendingBreaks ? '\n'.repeat(pendingBreaks) : ' ') : '\n'.repeat(pendingBreaks + 1) });
    } else if (pendingBreaks) units.push({ at: l.at - 1, text: '\n'.repeat(pendingBreaks) });
    for (let k = indent; k < l.text.length; k++) units.push({ at: l.at + k, text: l.text[k]! });
    prevContent = true;
    pendingBreaks = 0;
    lastBreakAt = l.at + l.text.length;
  }
  units.push({ at: lastBreakAt, text: '\n' });
  return units;
}
