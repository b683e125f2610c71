import type { ModelDynamicBatching, ModelQueuePolicy } from '../config/index.js';

/** Triton's defaults when a level has no policy: reject on timeout, no timeout, unbounded queue. */
const DEFAULT_POLICY: ModelQueuePolicy = {
  timeout_action: 'REJECT',
  default_timeout_microseconds: 0,
  allow_timeout_override: false,
  max_queue_size: 0,
};

/**
 * The queue policy of every priority level, index 1..levels (index 0 unused). A level listed in
 * `priority_queue_policy` uses that policy; the others use `default_queue_policy`.
 */
export function resolveQueuePolicies(db: ModelDynamicBatching | undefined, levels: number): ModelQueuePolicy[] {
  const base = db?.default_queue_policy ?? DEFAULT_POLICY;
  const out: ModelQueuePolicy[] = [DEFAULT_POLICY];
  for (let l = 1; l <= levels; l++) out.push(db?.priority_queue_policy?.[String(l)] ?? base);
  return out;
}

/**
 * Queue timeout in ms for a request under `policy`, or undefined for none. The request's own
 * `timeout` replaces the default only when the policy allows it, and 0 means "not given", as in
 * Triton's request-timeout handling.
 */
export function queueTimeoutMs(policy: ModelQueuePolicy, requestTimeoutUs: number | undefined): number | undefined {
  let us = policy.default_timeout_microseconds;
  if (policy.allow_timeout_override && requestTimeoutUs !== undefined && requestTimeoutUs > 0) us = requestTimeoutUs;
  return us > 0 ? us / 1000 : undefined;
}
