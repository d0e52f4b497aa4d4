/** Retry timing shared by every job kind. */
export interface BackoffPolicy {
  /** Delay before the first retry. */
  baseMs: number;
  /** The doubling stops here. */
  maxMs: number;
  /**
   * `equal` (default): half the delay fixed, half random, so retries of many jobs that failed together (a provider
   * outage) spread out instead of hammering it again in step. `none`: the exact doubling (tests, schedules people
   * read).
   */
  jitter?: 'equal' | 'none';
}

/**
 * The delay before retry number `attempt` (1 after the first failure): base × 2^(attempt−1), capped at maxMs,
 * with equal jitter unless turned off. `random` is injectable for tests.
 */
export function backoffMs(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const full = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  if (policy.jitter === 'none') return full;
  return Math.round(full / 2 + (random() * full) / 2);
}

/** What to do with a job whose try failed. */
export type FailureDecision = { retry: true; delayMs: number } | { retry: false };

/**
 * Retry after the backoff while attempts remain and the error is retryable (at least `minDelayMs`, e.g. a
 * provider's Retry-After); otherwise fail for good: the caller writes the failure record.
 */
export function decideRetry(
  policy: BackoffPolicy,
  job: { attempts: number; maxAttempts: number },
  retryable: boolean,
  options: { random?: () => number; minDelayMs?: number } = {},
): FailureDecision {
  if (!retryable || job.attempts >= job.maxAttempts) return { retry: false };
  return {
    retry: true,
    delayMs: Math.max(options.minDelayMs ?? 0, backoffMs(policy, job.attempts, options.random)),
  };
}
