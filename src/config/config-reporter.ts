/** Collects semantic problems for one parsed config, each placed at its path's position. */
import type { ConfigProblem, ParsedConfig } from './config-problem.js';
import type { ModelConfig } from './model-config.js';
import { positionOf } from './position-of.js';

export class ConfigReporter {
  readonly problems: ConfigProblem[] = [];
  readonly config: ModelConfig;
  constructor(private readonly parsed: ParsedConfig) {
    this.config = parsed.config;
  }

  /** Was this path written in the source (rather than filled in as a default)? */
  has(path: string): boolean {
    return this.parsed.positions.has(path);
  }

  /** `offset`: a character inside the string at `path` (a `#text` path) the problem points at. */
  error(path: string, message: string, offset?: number): void { this.add(path, message, 'error', offset); }
  warning(path: string, message: string): void { this.add(path, message, 'warning'); }
  /**
   * A check Triton makes too (core model_config_utils.cc): its message first, verbatim (it names the
   * model its own way), then ours after "; ".
   */
  triton(path: string, message: string, detail?: string): void {
    const pos = positionOf(this.parsed, path);
    this.problems.push({ ...pos, path, message: detail ? `${message}; ${detail}` : message, severity: 'error' });
  }

  private add(path: string, message: string, severity: 'error' | 'warning', offset?: number): void {
    const pos = positionOf(this.parsed, path, offset);
    this.problems.push({ ...pos, path, message: `model '${this.config.name}': ${message}`, severity });
  }
}

/** `input[1] 'INPUT1'` — how messages name a tensor. */
export const label = (path: string, name: string | undefined): string => (name ? `${path} '${name}'` : path);
