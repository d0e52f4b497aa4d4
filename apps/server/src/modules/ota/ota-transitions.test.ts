import { describe, expect, it } from 'vitest';
import { applyReport, mayRetry, type RowState, retryDelayMs } from './ota-transitions';

const now = new Date('2030-01-01T00:00:00Z');
const policy = { retries: 2, retry_backoff_s: 10 };
const sent = (attempts = 1): RowState => ({
  phase: 'dispatched',
  status: 0,
  progress: null,
  result: '',
  resultCode: '',
  resultParams: {},
  attempts,
  nextAttemptAt: null,
  finishedAt: null,
  deadlineKept: true,
});

describe('device reports', () => {
  it('follows progress (5, 1) without ending the attempt', () => {
    const accepted = applyReport(sent(), { status: 5 }, policy, 'running', now);
    expect(accepted).toMatchObject({
      phase: 'dispatched',
      status: 5,
      result: 'accepted',
      // A status without words is a key the console words in the user's language.
      resultCode: 'device_status',
      resultParams: { status: 5 },
      deadlineKept: true,
    });
    const downloaded = applyReport(accepted, { status: 1, progress: 100 }, policy, 'running', now);
    expect(downloaded).toMatchObject({ phase: 'dispatched', status: 1, progress: 100 });
  });

  it('ends on 4 (success) and 6 (refusal, final even with retries left)', () => {
    expect(applyReport(sent(), { status: 4 }, policy, 'running', now)).toMatchObject({
      phase: 'succeeded',
      status: 4,
      progress: 100,
      finishedAt: now,
    });
    expect(applyReport(sent(), { status: 6, message: 'busy' }, policy, 'running', now)).toMatchObject({
      phase: 'failed',
      status: 6,
      result: 'busy',
      // The device's own words are shown as they are.
      resultCode: 'device_message',
      resultParams: {},
      finishedAt: now,
    });
  });

  it('retries 2 and 3 with a doubling backoff while retries are left, then fails', () => {
    const first = applyReport(sent(1), { status: 2 }, policy, 'running', now);
    expect(first).toMatchObject({ phase: 'retry_wait', status: 2, result: 'download failed' });
    expect(first.nextAttemptAt?.getTime()).toBe(now.getTime() + 10_000);
    const second = applyReport(sent(2), { status: 3 }, policy, 'running', now);
    expect(second.nextAttemptAt?.getTime()).toBe(now.getTime() + 20_000);
    expect(applyReport(sent(3), { status: 3 }, policy, 'running', now)).toMatchObject({ phase: 'failed' });
    // A cancelled task sends nothing more.
    expect(applyReport(sent(1), { status: 2 }, policy, 'cancelled', now)).toMatchObject({ phase: 'failed' });
  });

  it('lets a late 4 win over a timeout, and keeps a success whatever comes after', () => {
    const timedOut: RowState = { ...sent(3), phase: 'failed', deadlineKept: false, finishedAt: now };
    expect(applyReport(timedOut, { status: 4 }, policy, 'running', now).phase).toBe('succeeded');
    const waiting: RowState = { ...sent(1), phase: 'retry_wait', deadlineKept: false };
    expect(applyReport(waiting, { status: 2 }, policy, 'running', now)).toMatchObject({
      phase: 'retry_wait',
      status: 2,
    });
    const done = applyReport(sent(), { status: 4 }, policy, 'running', now);
    expect(applyReport(done, { status: 2 }, policy, 'running', now)).toEqual(done);
  });
});

describe('retries', () => {
  it('caps the backoff at an hour and counts attempts against the retries', () => {
    expect(retryDelayMs({ retry_backoff_s: 60 }, 1)).toBe(60_000);
    expect(retryDelayMs({ retry_backoff_s: 60 }, 4)).toBe(480_000);
    expect(retryDelayMs({ retry_backoff_s: 3000 }, 3)).toBe(3_600_000);
    expect(mayRetry({ retries: 0 }, 1, 'running')).toBe(false);
    expect(mayRetry({ retries: 2 }, 2, 'paused')).toBe(true);
    expect(mayRetry({ retries: 2 }, 3, 'running')).toBe(false);
  });
});
