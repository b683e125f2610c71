export { compilePipeline } from './compile-pipeline.js';
export type { CompileResult } from './compile-pipeline.js';
export type { Resolve } from './pipeline-context.js';
export type { PipelinePlan, PlanStep, PlanBinding, PlanTensor } from './pipeline-plan.js';
export type { PipelineProblem, Locate } from './pipeline-problem.js';
export { formatProblems, hasErrors } from './pipeline-problem.js';
export { renderMermaid } from './render-mermaid.js';
export { renderDot } from './render-dot.js';
