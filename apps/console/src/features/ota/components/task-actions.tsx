import { otaActionAllowed, type OtaTaskAction, type OtaTaskItem } from '@cellhub/contract/ota';
import { Button, Message, Popconfirm, Space } from '@arco-design/web-react';
import { IconDelete, IconPause, IconPlayArrow, IconStop } from '@arco-design/web-react/icon';
import { useLocale } from '../../../lib/i18n';
import { useTaskAction } from '../api';
import locale from '../locale';
import { toMB } from '../ota-format';

/**
 * Start (with confirmation, naming the devices and the cellular data it will cost), pause, cancel and delete,
 * each enabled only where the task's state allows it (the contract's OTA_ALLOWED_ACTIONS; the server enforces it).
 * `text` draws them as the link-like buttons of a table row; otherwise as the buttons of a page header.
 */
export function TaskActions({
  task,
  downloadBytes,
  text,
  onDeleted,
}: {
  task: OtaTaskItem;
  /** What starting costs; defaults to size x the devices not already ended. */
  downloadBytes?: number;
  text?: boolean;
  onDeleted?: () => void;
}) {
  const t = useLocale(locale);
  const action = useTaskAction();
  const can = (a: OtaTaskAction) => otaActionAllowed(task.status, a);
  const resume = task.status === 'paused';
  const run = (a: OtaTaskAction) =>
    action.mutateAsync({ id: task.id, action: a }).then(
      () => {
        Message.success(t(`ota.done.${a === 'start' && resume ? 'resume' : a}`));
        if (a === 'delete') onDeleted?.();
      },
      // The request layer has shown why (71001 when the state changed meanwhile).
      () => undefined,
    );
  const bytes =
    downloadBytes ?? task.size * Math.max(0, task.device_count - task.skipped_count - task.cancelled_count);
  const busy = (a: OtaTaskAction) => action.isPending && action.variables?.action === a;
  const type = text ? 'text' : 'secondary';
  const size = text ? 'small' : 'default';
  // In a table row the four actions sit close together so the row's other columns keep their room.
  const style = text ? { padding: '0 6px' } : undefined;

  return (
    <Space size={text ? 0 : 8} style={text ? { whiteSpace: 'nowrap' } : undefined}>
      <Popconfirm
        title={resume ? t('ota.confirm.resume') : t('ota.confirm.start')}
        content={t('ota.confirm.startContent', {
          devices: task.device_count,
          version: task.version,
          mb: toMB(bytes),
        })}
        disabled={!can('start')}
        onOk={() => run('start')}
      >
        <Button
          type={text ? 'text' : 'primary'}
          size={size}
          style={style}
          icon={text ? undefined : <IconPlayArrow />}
          disabled={!can('start')}
          loading={busy('start')}
        >
          {resume ? t('ota.action.resume') : t('ota.action.start')}
        </Button>
      </Popconfirm>
      <Button
        type={type}
        size={size}
        style={style}
        icon={text ? undefined : <IconPause />}
        disabled={!can('pause')}
        loading={busy('pause')}
        onClick={() => void run('pause')}
      >
        {t('ota.action.pause')}
      </Button>
      <Popconfirm title={t('ota.confirm.cancel')} disabled={!can('cancel')} onOk={() => run('cancel')}>
        <Button
          type={type}
          size={size}
          style={style}
          status="warning"
          icon={text ? undefined : <IconStop />}
          disabled={!can('cancel')}
          loading={busy('cancel')}
        >
          {text ? t('ota.action.cancelShort') : t('ota.action.cancel')}
        </Button>
      </Popconfirm>
      <Popconfirm title={t('ota.confirm.delete')} disabled={!can('delete')} onOk={() => run('delete')}>
        <Button
          type={type}
          size={size}
          style={style}
          status="danger"
          icon={text ? undefined : <IconDelete />}
          disabled={!can('delete')}
          loading={busy('delete')}
        >
          {t('ota.action.delete')}
        </Button>
      </Popconfirm>
    </Space>
  );
}
