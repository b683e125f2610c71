export { compilePipeline } from './compile-pipeline.js';
export type { BatchBridge, PipelinePlan, PlanGuard, PlanLoop, PlanMap, PlanReturnOutput, PlanStep, PlanTensor } from './pipeline-plan.js';
export type { PipelineProblem } from './pipeline-problem.js';
export { renderMermaid } from './render-mermaid.js';
export { renderDot } from './render-dot.js';
export { inheritLabels, type ResolveLabels } from './inherit-labels.js';
export { compileCondition, formatConditionProblem } from './condition/index.js';
export type { Condition, ConditionProblem, ConditionTensorInfo } from './condition/index.js';
