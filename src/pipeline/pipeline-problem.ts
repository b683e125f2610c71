/** Problems found while compiling a pipeline, with a config path the caller maps to file:line:col. */

export interface PipelineProblem {
  /** Config path, e.g. `ensemble_scheduling.step[1].input_map.X`. */
  path: string;
  message: string;
  severity: 'error' | 'warning';
  /** Set on the error for a step whose model is unknown: a caller that knows where to look can say where it is. */
  unknownModel?: string;
  file?: string;
  line?: number;
  col?: number;
}

/** `offset`: a character inside the string at `path`, when the problem points into it. */
export type Locate = (path: string, offset?: number) => { file: string; line: number; col: number } | undefined;

export interface ProblemSink {
  readonly problems: PipelineProblem[];
  /** `shift` moves the column right, to a character inside a string (a condition's offset). */
  error(path: string, message: string, shift?: number): void;
  warn(path: string, message: string): void;
  /** The error for a step naming a model that `resolve` does not know. */
  unknownModel(path: string, message: string, model: string): void;
}

/** Collects every problem (validators never stop at the first one) and attaches locations. */
export function createProblemSink(locate?: Locate): ProblemSink {
  const problems: PipelineProblem[] = [];
  const add = (severity: PipelineProblem['severity'], path: string, message: string, shift = 0, model?: string) => {
    const p: PipelineProblem = model === undefined ? { path, message, severity } : { path, message, severity, unknownModel: model };
    const at = locate?.(path, shift);
    if (at) Object.assign(p, at);
    problems.push(p);
  };
  return {
    problems,
    error: (path, message, shift) => add('error', path, message, shift),
    warn: (path, message) => add('warning', path, message),
    unknownModel: (path, message, model) => add('error', path, message, 0, model),
  };
}

export function hasErrors(problems: readonly PipelineProblem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}
