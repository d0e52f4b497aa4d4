/**
 * What the OTA pages show that is not a plain field: sizes and download volume, durations, tag colours, the policy
 * in words, and live `ota.task` messages applied to a page of the task list.
 */
import type {
  OtaDeviceItem,
  OtaDevicePhase,
  OtaPolicy,
  OtaTargetsSummary,
  OtaTaskCounts,
  OtaTaskItem,
  OtaTaskStatus,
} from '@cellhub/contract/ota';
import type { OtaTaskEvent } from '@cellhub/contract/realtime';
import type { Translate } from '../../lib/i18n';
import type { ListResult } from '../../lib/request';

const MB = 1024 * 1024;

/** Bytes as MB with two decimals at most (the unit of the download volume: it is what a SIM plan counts in). */
export function toMB(bytes: number): string {
  const mb = bytes / MB;
  if (bytes > 0 && mb < 0.01) return '< 0.01';
  return new Intl.NumberFormat('en-US', { maximumFractionDigits: 2, minimumFractionDigits: 0 }).format(mb);
}

/** A file size in the largest unit that keeps it above 1 (B, KB, MB, GB). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let v = bytes / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${Number(v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2))} ${units[u]}`;
}

/** Seconds in words: `1 小时 30 分钟`, `45 秒`; at most the two largest units. */
export function formatDuration(seconds: number, t: Translate): string {
  if (seconds <= 0) return t('ota.unit.s', { n: 0 });
  const parts: [number, string][] = [
    [Math.floor(seconds / 86_400), 'ota.unit.d'],
    [Math.floor((seconds % 86_400) / 3600), 'ota.unit.h'],
    [Math.floor((seconds % 3600) / 60), 'ota.unit.min'],
    [seconds % 60, 'ota.unit.s'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, key]) => t(key, { n }))
    .join(' ');
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A time for a narrow table cell: `MM-DD HH:mm` this year, `YYYY-MM-DD HH:mm` otherwise (local time); `seconds`
 * adds `:ss` (the upgrade log, where a device's steps are seconds apart).
 */
export function shortTime(iso: string, now = new Date(), seconds = false): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const day =
    `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}` +
    (seconds ? `:${pad(d.getSeconds())}` : '');
  return d.getFullYear() === now.getFullYear() ? day : `${d.getFullYear()}-${day}`;
}

export const TASK_STATUS_COLOR: Record<OtaTaskStatus, string> = {
  inactive: 'gray',
  running: 'arcoblue',
  paused: 'orange',
  done: 'green',
  cancelled: 'red',
};

/** Seed section 4, per-device upgrade status 0-6. */
export const DEVICE_STATUS_COLOR: Record<number, string> = {
  0: 'gray',
  1: 'cyan',
  2: 'red',
  3: 'red',
  4: 'green',
  5: 'arcoblue',
  6: 'orange',
};

export const PHASE_BADGE: Record<OtaDevicePhase, 'default' | 'processing' | 'success' | 'warning' | 'error'> =
  {
    pending: 'default',
    offline: 'warning',
    dispatched: 'processing',
    retry_wait: 'warning',
    succeeded: 'success',
    failed: 'error',
    skipped: 'default',
    cancelled: 'default',
  };

/** Devices that have ended one way or another (the part of the progress bar that is done). */
export function endedCount(c: OtaTaskCounts): number {
  return c.success_count + c.fail_count + c.skipped_count + c.cancelled_count;
}

export function progressPercent(c: OtaTaskCounts): number {
  if (c.device_count === 0) return 0;
  return Math.floor((endedCount(c) / c.device_count) * 1000) / 10;
}

/** The rollout policy as label/value rows, in the order an operator reads it. */
export function policyRows(p: OtaPolicy, t: Translate): { label: string; value: string }[] {
  const d = (s: number) => formatDuration(s, t);
  return [
    {
      label: t('ota.policy.waves'),
      value:
        p.wave_type === 'percent'
          ? t('ota.policyText.wavesPercent', { size: p.wave_size })
          : t('ota.policyText.wavesCount', { size: p.wave_size }),
    },
    {
      label: t('ota.policy.wavePause'),
      value: p.wave_pause_s > 0 ? d(p.wave_pause_s) : t('ota.policyText.noPause'),
    },
    { label: t('ota.policy.maxConcurrent'), value: t('ota.policyText.concurrent', { n: p.max_concurrent }) },
    {
      label: t('ota.policy.failure'),
      value:
        p.failure_threshold === null
          ? t('ota.policyText.failureNever')
          : p.failure_threshold_type === 'percent'
            ? t('ota.policyText.failurePercent', { n: p.failure_threshold })
            : t('ota.policyText.failureCount', { n: p.failure_threshold }),
    },
    {
      label: t('ota.policy.retries'),
      value:
        p.retries === 0
          ? t('ota.policyText.noRetries')
          : t('ota.policyText.retries', { n: p.retries, d: d(p.retry_backoff_s) }),
    },
    { label: t('ota.policy.timeout'), value: t('ota.policyText.timeout', { d: d(p.timeout_s) }) },
    {
      label: t('ota.policy.skipSame'),
      value: p.skip_same_version ? t('ota.policyText.skipSame') : t('ota.policyText.notSkip'),
    },
  ];
}

/** How a task's targets were chosen, in one line. */
export function targetsText(s: OtaTargetsSummary, t: Translate): string {
  switch (s.type) {
    case 'all':
      return t('ota.targets.all');
    case 'list':
      return t('ota.detail.targets.list', { count: s.sn_count ?? 0 });
    case 'pick':
      return t('ota.detail.targets.pick', { count: s.sn_count ?? 0 });
    case 'filter': {
      const conditions = [
        s.keyword ? `${t('ota.targets.filter.keyword')} "${s.keyword}"` : '',
        s.online === undefined ? '' : s.online === 1 ? t('ota.online') : t('ota.offline'),
        s.fw_version ? `${t('ota.targets.filter.fwVersion')} ${s.fw_version}` : '',
      ].filter(Boolean);
      return t('ota.detail.targets.filter', {
        conditions: conditions.length ? conditions.join(t('ota.listSeparator')) : t('ota.filter.all'),
      });
    }
  }
}

const COUNT_FIELDS = [
  'device_count',
  'success_count',
  'fail_count',
  'upgrading_count',
  'pending_count',
  'skipped_count',
  'cancelled_count',
] as const satisfies readonly (keyof OtaTaskCounts)[];

/** The task's state and counts from a live message, on top of what was read. */
export function patchTask<T extends OtaTaskItem>(row: T, e: OtaTaskEvent): T {
  const next: T = { ...row, status: e.status, pause_reason: e.pause_reason };
  for (const f of COUNT_FIELDS) next[f] = e[f];
  return next;
}

/**
 * Applies a live `ota.task` message to a page of the list. `list` is the same object when the task is not on the
 * page (React Query then re-renders nothing). `refetch` asks to read the page again: the task was deleted, or its
 * status changed (start and end times come with it, and it may leave the page's status filter).
 */
export function applyTaskEvent(
  list: ListResult<OtaTaskItem> | undefined,
  e: OtaTaskEvent,
): { list: ListResult<OtaTaskItem> | undefined; refetch: boolean } {
  const row = list?.data.find((r) => r.id === e.id);
  if (!list || !row) return { list, refetch: false };
  if (e.deleted) return { list, refetch: true };
  return {
    list: { ...list, data: list.data.map((r) => (r.id === e.id ? patchTask(r, e) : r)) },
    refetch: row.status !== e.status,
  };
}

const SIM_REASONS = ['expired', 'suspended', 'no_traffic', 'not_enough_traffic'];

/**
 * The result column of the upgrade log in the user's language, from the server's `result_code` and
 * `result_params`. A device's own words are shown as it sent them; a row without a code (written before codes
 * existed, or a code this console does not know yet) shows the server's text.
 */
export function resultText(
  t: Translate,
  row: Pick<OtaDeviceItem, 'result' | 'result_code' | 'result_params'>,
): string {
  const p = row.result_params;
  switch (row.result_code) {
    case '':
    case 'device_message':
      return row.result;
    case 'device_status':
      return t(`ota.deviceStatus.${String(p.status)}`);
    case 'sim_refused': {
      const reason = String(p.reason ?? '');
      return t('ota.result.sim_refused', {
        reason: SIM_REASONS.includes(reason) ? t(`ota.result.sim.${reason}`) : reason,
      });
    }
    default: {
      const key = `ota.result.${row.result_code}`;
      const text = t(key, p);
      return text === key ? row.result : text;
    }
  }
}
