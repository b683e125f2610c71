import type { ConditionProblem } from './condition-types.js';

/**
 * A problem as one message for the pipeline's problem sink: the text, then the condition with a
 * caret line under the offending token, so a multi-clause condition shows where it went wrong.
 */
export function formatConditionProblem(source: string, problem: ConditionProblem): string {
  // The caret line is only meaningful when the condition fits on one line.
  if (source.includes('\n')) return `${problem.message} (at offset ${problem.offset} of the condition)`;
  const caret = ' '.repeat(problem.offset) + '^'.repeat(Math.max(1, problem.length));
  return `${problem.message}\n    ${source}\n    ${caret}`;
}
