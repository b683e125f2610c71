export { compilePipeline } from './compile-pipeline.js';
export type { BatchBridge, PipelinePlan, PlanStep, PlanTensor } from './pipeline-plan.js';
export type { PipelineProblem } from './pipeline-problem.js';
export { renderMermaid } from './render-mermaid.js';
export { renderDot } from './render-dot.js';
export { inheritLabels, type ResolveLabels } from './inherit-labels.js';
