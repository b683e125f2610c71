/**
 * Fenced code blocks of the Markdown pages under docs/, with the annotations written on the lines
 * just above them as HTML comments (invisible when the page is rendered):
 *   <!-- not-run: why -->     a command block that is not run (the test lists each with its reason)
 *   <!-- fragment -->         a config block that is part of a config: parsed, not validated
 *   <!-- invalid: text -->    a config block the server refuses: validation must report `text`
 *   <!-- config -->           a JSON block that is a config.json: validated as one
 *   <!-- response -->         a JSON block: what the last command of the previous command block prints
 *   <!-- file: path -->       a code block copied from a repository file: the file must contain it
 *   <!-- expect-exit: N -->   a command block whose last command exits with N
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DocBlock {
  /** docs/<page>.md */
  page: string;
  /** Line of the opening fence (1-based). */
  line: number;
  /** First word of the info string: sh, bash, pbtxt, yaml, json, ts, text, ... */
  lang: string;
  text: string;
  notes: Record<string, string>;
}

const NOTE = /^<!--\s*([a-z-]+)(?::\s*(.*?))?\s*-->$/;

export function pageBlocks(root: string, page: string): DocBlock[] {
  const lines = readFileSync(join(root, page), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  let notes: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const note = NOTE.exec(line.trim());
    if (note) { notes[note[1]!] = note[2] ?? ''; continue; }
    const fence = /^(```+)\s*([A-Za-z0-9_-]*)/.exec(line);
    if (!fence) {
      // A note applies to the next block only when nothing but blank lines comes between.
      if (line.trim() !== '') notes = {};
      continue;
    }
    const body: string[] = [];
    const start = i + 1;
    for (i++; i < lines.length && !lines[i]!.startsWith(fence[1]!); i++) body.push(lines[i]!);
    blocks.push({ page, line: start, lang: fence[2]!.toLowerCase(), text: body.join('\n'), notes });
    notes = {};
  }
  return blocks;
}

/** Every page of the user guide: docs/*.md. */
export function guidePages(root: string): string[] {
  return readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
}

/** The commands of a shell block: continuation lines joined, blank and comment lines dropped. */
export function shellCommands(text: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (line.endsWith('\\')) { pending += line.slice(0, -1) + ' '; continue; }
    const cmd = (pending + line).trim();
    pending = '';
    if (cmd && !cmd.startsWith('#')) out.push(cmd);
  }
  return out;
}

/** `expected` is contained in `actual`: objects by key, arrays element by element, numbers to 1e-4. */
export function containsJson(actual: unknown, expected: unknown, path = '$'): string | undefined {
  if (typeof expected === 'number' && typeof actual === 'number') {
    return Math.abs(actual - expected) <= 1e-4 * Math.max(1, Math.abs(expected)) ? undefined : `${path}: ${actual} is not ${expected}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return `${path}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`;
    for (let i = 0; i < expected.length; i++) {
      const bad = containsJson(actual[i], expected[i], `${path}[${i}]`);
      if (bad) return bad;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return `${path}: ${JSON.stringify(actual)} is not an object`;
    for (const [k, v] of Object.entries(expected)) {
      const bad = containsJson((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
      if (bad) return bad;
    }
    return undefined;
  }
  return actual === expected ? undefined : `${path}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`;
}
