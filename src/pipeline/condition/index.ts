export { compileCondition } from './compile-condition.js';
export { formatConditionProblem } from './format-condition-problem.js';
export type { Condition, ConditionEnv, ConditionProblem, ConditionTensorInfo } from './condition-types.js';
