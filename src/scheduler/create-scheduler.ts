import type { BackendInstance } from '../backend/index.js';
import { isEnsemble, type ModelConfig, type ModelInstanceGroup } from '../config/index.js';
import { Errors } from '../errors.js';
import { adaptiveDelayOf } from './adaptive-delay.js';
import { batchPolicyOf } from './batch-policy.js';
import { systemClock, type Clock } from './clock.js';
import { DynamicBatcher } from './dynamic-batcher.js';
import { resolveQueuePolicies } from './queue-policy.js';
import type { RateLimiter } from './rate-limiter.js';
import type { Scheduler, SchedulerHooks } from './scheduler.js';
import { SequenceBatcher } from './sequence-batcher.js';

interface CreateSchedulerOptions {
  model: string;
  clock?: Clock;
  hooks?: SchedulerHooks;
  /**
   * Bytes of each implicit-state `initial_state.data_file`, keyed by that file name, read by the
   * caller from `<model dir>/initial_state/` (the scheduler does no I/O).
   */
  initialState?: Readonly<Record<string, Uint8Array>>;
  /** The server's rate limiter (--rate-limit=execution_count); absent = off. */
  rateLimiter?: RateLimiter | undefined;
}

/**
 * The scheduler a config asks for: the sequence batcher, the dynamic batcher, or Triton's default
 * scheduler (each request runs alone as soon as an instance is free). Ensembles are scheduled by
 * their pipeline, not here.
 */
export function createScheduler(config: ModelConfig, instances: readonly BackendInstance[], options: CreateSchedulerOptions): Scheduler {
  if (isEnsemble(config)) throw Errors.ensembleNotSchedulable(options.model);
  const clock = options.clock ?? systemClock;
  const decoupled = config.model_transaction_policy?.decoupled ?? false;
  const policy = batchPolicyOf(config, config.dynamic_batching);
  // Checked before registering, so a refused parameter leaves the rate limiter untouched.
  const adaptive = config.sequence_batching ? undefined : adaptiveDelayOf(options.model, config, policy.capRows, instances.length);
  if (instances.length === 0) throw Errors.schedulerNoInstances(options.model);
  const limits = options.rateLimiter?.register(options.model, groupLimits(config, instances.length));
  if (config.sequence_batching) {
    return new SequenceBatcher(config, instances, { model: options.model, clock, hooks: options.hooks, decoupled, initialState: options.initialState ?? {}, limits });
  }
  const db = config.dynamic_batching;
  const levels = Math.max(1, db?.priority_levels ?? 0);
  const def = db?.default_priority_level ?? 0;
  return new DynamicBatcher(instances, {
    model: options.model,
    clock,
    hooks: options.hooks,
    policy,
    queuePolicies: resolveQueuePolicies(db, levels),
    defaultLevel: def >= 1 && def <= levels ? def : levels,
    preserveOrdering: db?.preserve_ordering ?? false,
    decoupled,
    limits,
    adaptive,
  });
}

/** Each instance's group rate_limiter, in the order the loader creates instances (group by group). */
function groupLimits(config: ModelConfig, count: number): (ModelInstanceGroup['rate_limiter'])[] {
  const limits: (ModelInstanceGroup['rate_limiter'])[] = [];
  for (const g of config.instance_group) for (let i = 0; i < Math.max(1, g.count ?? 1); i++) limits.push(g.rate_limiter);
  return Array.from({ length: count }, (_, i) => limits[i]);
}
