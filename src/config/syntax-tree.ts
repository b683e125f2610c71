/**
 * The format-neutral tree every front end (pbtxt, YAML, JSON, plain objects) produces, so one
 * schema-driven converter checks all of them the same way and every value keeps its position.
 */
import type { SourcePosition } from './config-problem.js';

/**
 * How a scalar was written. The converter uses this to apply each format's rules:
 * - `string`: quoted text (any format);
 * - `ident`: a bare pbtxt identifier (enum names, true/false, inf/nan);
 * - `number`: a numeric literal, `text` keeps its spelling (hex, `1.5f`);
 * - `bool`/`null`: typed JSON/YAML literals;
 * - `plain`: an unquoted YAML scalar, i.e. untyped text that YAML also resolved to `value`.
 */
type ScalarStyle = 'string' | 'ident' | 'number' | 'bool' | 'null' | 'plain';

export interface ScalarNode {
  readonly type: 'scalar';
  readonly style: ScalarStyle;
  readonly text: string;
  readonly value: string | number | boolean | null;
  readonly pos: SourcePosition;
  /** Where character `offset` of a string value was written (YAML and JSON), when known exactly. */
  readonly inside?: (offset: number) => SourcePosition;
}

interface ListNode {
  readonly type: 'list';
  readonly items: SyntaxNode[];
  readonly pos: SourcePosition;
}

export interface Entry {
  readonly key: string;
  readonly keyPos: SourcePosition;
  readonly value: SyntaxNode;
  /**
   * The key as written, when the YAML pipeline sugar renamed it (`inputs`), for messages; `atTop`:
   * written at the top of the file, not under its parent (`steps:` became ensemble_scheduling.step).
   */
  readonly written?: { readonly key: string; readonly atTop?: boolean };
}

/**
 * `message` is a pbtxt message literal (repeated keys allowed, maps written as key/value entries);
 * `mapping` is a YAML/JSON object (unique keys, maps written as objects).
 */
export interface ObjectNode {
  readonly type: 'object';
  readonly style: 'message' | 'mapping';
  readonly entries: Entry[];
  readonly pos: SourcePosition;
}

export type SyntaxNode = ScalarNode | ListNode | ObjectNode;

const START: SourcePosition = Object.freeze({ line: 1, col: 1 });

/** A plain JavaScript value (already-parsed JSON) as a tree; every position is 1:1. */
export function treeFromValue(v: unknown): SyntaxNode {
  if (Array.isArray(v)) return { type: 'list', items: v.map(treeFromValue), pos: START };
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([key, x]) => ({ key, keyPos: START, value: treeFromValue(x) }));
    return { type: 'object', style: 'mapping', entries, pos: START };
  }
  if (typeof v === 'string') return { type: 'scalar', style: 'string', text: v, value: v, pos: START };
  if (typeof v === 'number' || typeof v === 'bigint') {
    return { type: 'scalar', style: 'number', text: String(v), value: Number(v), pos: START };
  }
  if (typeof v === 'boolean') return { type: 'scalar', style: 'bool', text: String(v), value: v, pos: START };
  return { type: 'scalar', style: 'null', text: 'null', value: null, pos: START };
}
