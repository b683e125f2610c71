export { systemClock, ManualClock } from './clock.js';
export type { Clock, TimerHandle } from './clock.js';
export type { WorkItem, SchedulerHooks, Scheduler } from './scheduler.js';
