import type { RunResultStatus, UserCommandResult } from '@cellhub/contract/user-commands';

/**
 * What became of each device of a run, in the order the summary says it. A reply with a non-zero code is the
 * device refusing the command, not a success; `pending` was queued for an offline device and is not lost.
 */
export const TALLY_KEYS = [
  'ok',
  'rejected',
  'waiting',
  'queued',
  'timeout',
  'offline',
  'failed',
  'not_found',
  'expired',
  'cancelled',
] as const;
export type TallyKey = (typeof TALLY_KEYS)[number];

const BY_STATUS: Record<Exclude<RunResultStatus, 'replied'>, TallyKey> = {
  sent: 'waiting',
  pending: 'queued',
  timeout: 'timeout',
  offline: 'offline',
  failed: 'failed',
  not_found: 'not_found',
  expired: 'expired',
  cancelled: 'cancelled',
};

export function tallyKey(r: Pick<UserCommandResult, 'status' | 'code'>): TallyKey {
  if (r.status === 'replied') return r.code === null || r.code === 0 ? 'ok' : 'rejected';
  return BY_STATUS[r.status];
}

export interface RunTally {
  total: number;
  /** Only the states some device is in, in TALLY_KEYS order. */
  parts: { key: TallyKey; n: number }[];
  /** How the whole run reads: every device answered well, some still on their way, or some went wrong. */
  tone: 'success' | 'info' | 'warning';
}

export function tallyRun(results: readonly Pick<UserCommandResult, 'status' | 'code'>[]): RunTally {
  const counts = new Map<TallyKey, number>();
  for (const r of results) {
    const k = tallyKey(r);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const parts = TALLY_KEYS.filter((k) => counts.has(k)).map((key) => ({ key, n: counts.get(key) ?? 0 }));
  const bad = parts.some((p) => !['ok', 'waiting', 'queued'].includes(p.key));
  const allOk = results.length > 0 && counts.get('ok') === results.length;
  return { total: results.length, parts, tone: bad ? 'warning' : allOk ? 'success' : 'info' };
}

/** "2 device(s): 2 replied OK" in the caller's language; `t` is the feature's translator. */
export function describeTally(
  tally: RunTally,
  t: (key: string, vars?: Record<string, string | number>) => string,
): string {
  const parts = tally.parts.map((p) => t(`userCommand.tally.${p.key}`, { n: p.n }));
  return t('userCommand.tally', { total: tally.total, parts: parts.join(t('userCommand.tally.sep')) });
}
