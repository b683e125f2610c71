/** Where a config path was written: the path itself, else its nearest recorded parent, else 1:1. */
import type { ParsedConfig, SourcePosition } from './config-problem.js';

/** `offset`: a character inside the string at `path` (a `#text` path), for a problem pointing into it. */
export function positionOf(parsed: Pick<ParsedConfig, 'file' | 'positions'>, path: string, offset = 0): { file: string; line: number; col: number } {
  let p = path;
  for (;;) {
    const pos: SourcePosition | undefined = parsed.positions.get(p);
    if (pos && p === path && offset > 0 && pos.inside) {
      const at = pos.inside(offset);
      return { file: parsed.file, line: at.line, col: at.col };
    }
    if (pos) return { file: parsed.file, line: pos.line, col: pos.col + (p === path ? offset : 0) };
    const parent = parentPath(p);
    if (parent === undefined) return { file: parsed.file, line: 1, col: 1 };
    p = parent;
  }
}

/** `a.b[2]` -> `a.b`, `a.b` -> `a`, `a` -> '' (the whole file), '' -> undefined. */
function parentPath(path: string): string | undefined {
  if (path === '') return undefined;
  const m = /\[\d+\]$/.exec(path);
  if (m) return path.slice(0, m.index);
  const dot = path.lastIndexOf('.');
  return dot < 0 ? '' : path.slice(0, dot);
}

/** True when `a` is `b` or one of its ancestors ('' is everything's ancestor). */
export function isPathWithin(b: string, a: string): boolean {
  return a === '' || b === a || b.startsWith(`${a}.`) || b.startsWith(`${a}[`);
}
