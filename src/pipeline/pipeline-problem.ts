/** Problems found while compiling a pipeline, with a config path the caller maps to file:line:col. */

export interface PipelineProblem {
  /** Config path, e.g. `ensemble_scheduling.step[1].input_map.X`. */
  path: string;
  message: string;
  severity: 'error' | 'warning';
  file?: string;
  line?: number;
  col?: number;
}

export type Locate = (path: string) => { file: string; line: number; col: number } | undefined;

export interface ProblemSink {
  readonly problems: PipelineProblem[];
  error(path: string, message: string): void;
  warn(path: string, message: string): void;
}

/** Collects every problem (validators never stop at the first one) and attaches locations. */
export function createProblemSink(locate?: Locate): ProblemSink {
  const problems: PipelineProblem[] = [];
  const add = (severity: PipelineProblem['severity'], path: string, message: string) => {
    const p: PipelineProblem = { path, message, severity };
    const at = locate?.(path);
    if (at) Object.assign(p, at);
    problems.push(p);
  };
  return {
    problems,
    error: (path, message) => add('error', path, message),
    warn: (path, message) => add('warning', path, message),
  };
}

export function hasErrors(problems: readonly PipelineProblem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}
