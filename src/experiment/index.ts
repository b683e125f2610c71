export { compileExperiment } from './compile-experiment.js';
export { createExperimentScheduler } from './experiment-scheduler.js';
export type { ExperimentPlan, PlanVariant } from './experiment-plan.js';
export type { MirrorOutcome } from './create-mirror.js';
export { createRoutingHeaders } from './routing-headers.js';
export type { RoutingHeaders } from './routing-headers.js';
export { renderExperimentDot, renderExperimentMermaid } from './render-experiment.js';
