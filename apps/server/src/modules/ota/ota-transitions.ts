import type { OtaDevicePhase, OtaPolicy, OtaTaskStatus } from '@cellhub/contract/ota';
import type { OtaUp } from '@cellhub/contract/protocol';
import { otaResult, type OtaResult } from './ota-results';

/** What a device report may change on its upgrade log row. */
export interface RowState extends OtaResult {
  phase: OtaDevicePhase;
  status: number;
  progress: number | null;
  attempts: number;
  nextAttemptAt: Date | null;
  finishedAt: Date | null;
  /** The attempt still runs (dispatched): its deadline stays. */
  deadlineKept: boolean;
}

export const MAX_BACKOFF_S = 3600;

/** Wait before attempt `attempt + 1` after attempt `attempt` failed: backoff * 2^(attempt-1), at most an hour. */
export function retryDelayMs(policy: Pick<OtaPolicy, 'retry_backoff_s'>, attempt: number): number {
  const s = policy.retry_backoff_s * 2 ** Math.max(0, Math.min(attempt - 1, 20));
  return Math.min(s, MAX_BACKOFF_S) * 1000;
}

/** Another attempt is due after attempt `attempts` failed (not after a refusal, not in a cancelled task). */
export const mayRetry = (policy: Pick<OtaPolicy, 'retries'>, attempts: number, taskStatus: OtaTaskStatus) =>
  taskStatus !== 'cancelled' && attempts <= policy.retries;

/**
 * One `P/up/ota` report (status 0-6 of seed section 4) applied to the row of the attempt it names:
 * - 0, 1, 5: progress; the attempt goes on;
 * - 4: succeeded (also from any other phase: the device says it runs the version now);
 * - 6: refused, failed for good;
 * - 2, 3: the attempt failed; retried after the backoff while retries are left, else failed.
 * A report for an attempt that already ended (timed out, or a late duplicate) only updates what the device says,
 * except 4, which always wins.
 */
export function applyReport(
  row: RowState,
  msg: Pick<OtaUp, 'status' | 'progress' | 'message'>,
  policy: Pick<OtaPolicy, 'retries' | 'retry_backoff_s'>,
  taskStatus: OtaTaskStatus,
  now: Date,
): RowState {
  const words = msg.message?.trim();
  const next: RowState = {
    ...row,
    status: msg.status,
    progress: msg.progress ?? (msg.status === 4 ? 100 : row.progress),
    ...(words
      ? otaResult('device_message', { message: words })
      : otaResult('device_status', { status: msg.status })),
  };
  if (row.phase === 'succeeded') return { ...row };
  if (msg.status === 4) {
    return {
      ...next,
      phase: 'succeeded',
      progress: 100,
      finishedAt: now,
      nextAttemptAt: null,
      deadlineKept: false,
    };
  }
  if (row.phase !== 'dispatched') return next;
  if (msg.status === 6) {
    return { ...next, phase: 'failed', finishedAt: now, nextAttemptAt: null, deadlineKept: false };
  }
  if (msg.status === 2 || msg.status === 3) {
    if (mayRetry(policy, row.attempts, taskStatus)) {
      return {
        ...next,
        phase: 'retry_wait',
        nextAttemptAt: new Date(now.getTime() + retryDelayMs(policy, row.attempts)),
        deadlineKept: false,
      };
    }
    return { ...next, phase: 'failed', finishedAt: now, nextAttemptAt: null, deadlineKept: false };
  }
  return next;
}
