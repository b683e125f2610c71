/**
 * When `serve --replicas`' primary replaces a replica that exited: at once-ish for a replica that
 * had been serving a while, with a doubling delay when replicas keep dying soon after they start
 * (a model that crashes the process, memory the machine does not have), and not at all after a
 * bounded run of such quick failures, so that a crash loop ends in an exit an operator sees
 * instead of a process that spins.
 */
export interface RestartPolicy {
  /** A replica that exited sooner than this after it started counts as a quick failure. */
  quickMs: number;
  /** Quick failures in a row after which the primary gives up. */
  maxQuickFailures: number;
  /** Delay before the first replacement; doubled for each quick failure in a row. */
  baseDelayMs: number;
  maxDelayMs: number;
}

const DEFAULT_RESTART_POLICY: RestartPolicy = { quickMs: 30_000, maxQuickFailures: 5, baseDelayMs: 250, maxDelayMs: 8_000 };

export type RestartDecision = { restart: true; delayMs: number; quickFailures: number } | { restart: false; quickFailures: number };

/** Counts quick failures across all replicas: a crash loop is the server's, whichever replica shows it. */
export function createRestartTracker(policy: RestartPolicy = DEFAULT_RESTART_POLICY): (livedMs: number) => RestartDecision {
  let quick = 0;
  return (livedMs) => {
    quick = livedMs < policy.quickMs ? quick + 1 : 0;
    if (quick >= policy.maxQuickFailures) return { restart: false, quickFailures: quick };
    const delayMs = quick === 0 ? policy.baseDelayMs : Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (quick - 1));
    return { restart: true, delayMs, quickFailures: quick };
  };
}
