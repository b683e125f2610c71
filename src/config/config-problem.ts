/** Problems found in a model configuration, each at file:line:col, and how they print. */
import type { ModelConfig } from './model-config.js';

/** 1-based line and column. */
export interface SourcePosition {
  line: number; col: number;
  /** On a string's text: where its character `offset` was written (escapes and folded lines differ from col + offset). */
  inside?: (offset: number) => SourcePosition;
}

export interface ConfigProblem {
  file: string;
  line: number;
  col: number;
  /** Config path of the offending value: `input[0].dims`, `parameters.KEY`, '' for the whole file. */
  path: string;
  message: string;
  severity: 'error' | 'warning';
}

export interface ParsedConfig {
  config: ModelConfig;
  file: string;
  /** Where each value present in the source was written, by config path. */
  positions: ReadonlyMap<string, SourcePosition>;
  /** Syntax and schema problems (semantic ones come from `validateConfig`). */
  problems: ConfigProblem[];
}

/** Lines `file:line:col: error: message`, one per problem. */
export function formatProblems(problems: readonly ConfigProblem[]): string {
  return problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.severity}: ${p.message}`).join('\n');
}

/**
 * A failed load's reason, as a client sees it: each problem's message first (Triton's words where
 * Triton makes the check), then where it is, after "; ".
 */
export function formatLoadProblems(problems: readonly ConfigProblem[]): string {
  return problems.map((p) => `${p.message}; ${p.file}:${p.line}:${p.col}`).join('\n');
}
