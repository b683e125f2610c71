export { systemClock, ManualClock } from './clock.js';
export type { Clock, TimerHandle } from './clock.js';
export type { WorkItem, SchedulerHooks, Scheduler, SequenceStats, StatDuration } from './scheduler.js';
export { createScheduler } from './create-scheduler.js';
export type { CreateSchedulerOptions } from './create-scheduler.js';
export { DynamicBatcher } from './dynamic-batcher.js';
export { SequenceBatcher } from './sequence-batcher.js';
