import { Space, Tag, Tooltip } from '@arco-design/web-react';
import type { DeviceDrops, DropReason } from '@cellhub/contract/device-drops';
import { useQuery } from '@tanstack/react-query';
import { formatTime } from '../../../../lib/format-time';
import { useLocale } from '../../../../lib/i18n';
import { http } from '../../../../lib/request';
import locale from '../../locale/detail-index';

/** Rate and size drops are the device's to fix (it is told with 10104/50001); the rest are mostly payload faults. */
const REASON_COLOR: Partial<Record<DropReason, string>> = {
  rate_limit: 'orange',
  too_large: 'orange',
  not_allowed: 'red',
  connect_refused: 'red',
  server_error: 'magenta',
};

export function useDeviceDrops(sn: string) {
  return useQuery({
    queryKey: ['device-detail', sn, 'drops'],
    queryFn: () => http.get<DeviceDrops>(`/api/devices/${encodeURIComponent(sn)}/drops`, { silent: true }),
    // Counts reach the database once a second; nothing pushes them, so the figure is looked at again now and then.
    refetchInterval: 30_000,
  });
}

/**
 * The device's dropped messages: the total, and one tag per reason with its count (the time of the last one in its
 * tooltip). `fallback` is the device row's count, shown until the breakdown has loaded.
 */
export default function DroppedMessages({ sn, fallback }: { sn: string; fallback: number }) {
  const t = useLocale(locale);
  const drops = useDeviceDrops(sn).data;
  const total = drops?.total ?? fallback;
  const reasons = drops?.reasons ?? [];
  const counted = reasons.reduce((n, r) => n + r.count, 0);
  return (
    <Space wrap size={4} data-testid="device-dropped">
      <span data-testid="device-dropped-total" style={{ marginRight: 4 }}>
        {total}
      </span>
      {reasons.map((r) => (
        <Tooltip key={r.reason} content={t('deviceDetail.drops.last', { time: formatTime(r.last_at) })}>
          <Tag size="small" color={REASON_COLOR[r.reason]} data-testid={`device-dropped-${r.reason}`}>
            {t(`deviceDetail.drops.reason.${r.reason}`)} {r.count}
          </Tag>
        </Tooltip>
      ))}
      {drops && total > counted ? (
        <Tooltip content={t('deviceDetail.drops.earlierHint')}>
          <Tag size="small">
            {t('deviceDetail.drops.earlier')} {total - counted}
          </Tag>
        </Tooltip>
      ) : null}
    </Space>
  );
}
