import type { OtaPauseReason, OtaTaskStatus } from '@cellhub/contract/ota';
import { Tag, Tooltip } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import { DEVICE_STATUS_COLOR, TASK_STATUS_COLOR } from '../ota-format';

/** A task's state (seed section 4); a paused task says why on hover and with a warning icon-free suffix. */
export function TaskStatusTag({
  status,
  pauseReason,
}: {
  status: OtaTaskStatus;
  pauseReason?: OtaPauseReason | null;
}) {
  const t = useLocale(locale);
  const tag = (
    <Tag color={TASK_STATUS_COLOR[status]} data-testid="ota-task-status">
      {t(`ota.status.${status}`)}
    </Tag>
  );
  if (status !== 'paused' || !pauseReason) return tag;
  return <Tooltip content={t(`ota.pauseReason.${pauseReason}`)}>{tag}</Tooltip>;
}

/** Per-device upgrade status 0-6 with the seed's texts. */
export function DeviceStatusTag({ status }: { status: number }) {
  const t = useLocale(locale);
  return (
    <Tag size="small" color={DEVICE_STATUS_COLOR[status] ?? 'gray'}>
      {t(`ota.deviceStatus.${status}`)}
    </Tag>
  );
}
