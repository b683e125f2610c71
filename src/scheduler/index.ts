export { systemClock, ManualClock } from './clock.js';
export type { Clock } from './clock.js';
export type { WorkItem, SchedulerHooks, Scheduler, StatDuration } from './scheduler.js';
export { createScheduler } from './create-scheduler.js';
export { QueuedEntries, QueuedEntry } from './queued-entries.js';
export { abortReason, stoppedError } from './queue-errors.js';
export { RateLimiter, type RateLimitResource } from './rate-limiter.js';
export { AdaptiveDelay, ADAPTIVE_DELAY_PARAMETER } from './adaptive-delay.js';
