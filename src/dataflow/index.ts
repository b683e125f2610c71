export { createEnsembleScheduler } from './ensemble-scheduler.js';
export type { EnsembleScheduler, EnsembleSchedulerOptions } from './ensemble-scheduler.js';
export { runPlan } from './run-plan.js';
export type { RunContext } from './run-plan.js';
export type { StepStat } from './step-stats.js';
