import type { OtaTaskItem } from '@cellhub/contract/ota';
import { Badge, Space } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import type { RealtimeStatus } from '../../../lib/realtime';
import locale from '../locale';
import { TaskActions } from './task-actions';

/**
 * The task page's header: whether live updates flow, then the task's actions. Arco's Space keys its children by
 * position when they have no key, so a badge appearing once the socket opens would remount the actions and close a
 * start confirmation the user has just opened; every child here keeps its own key.
 */
export function TaskHeaderExtra({
  task,
  live,
  downloadBytes,
  onDeleted,
}: {
  task: OtaTaskItem;
  live: RealtimeStatus;
  downloadBytes?: number;
  onDeleted?: () => void;
}) {
  const t = useLocale(locale);
  return (
    <Space size={16}>
      {live === 'open' ? (
        <Badge key="live" status="processing" text={t('ota.live.open')} />
      ) : live === 'reconnecting' ? (
        <Badge key="live" status="warning" text={t('ota.live.off')} />
      ) : null}
      <TaskActions key="actions" task={task} downloadBytes={downloadBytes} onDeleted={onDeleted} />
    </Space>
  );
}
