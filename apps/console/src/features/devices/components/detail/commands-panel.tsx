import {
  Alert,
  Badge,
  Button,
  Card,
  Form,
  Input,
  InputNumber,
  Radio,
  Table,
  Tooltip,
  type BadgeProps,
} from '@arco-design/web-react';
import {
  COMMAND_TTL_DEFAULT_S,
  COMMAND_TTL_MAX_S,
  type CommandItem,
  type CommandOfflineMode,
  type CommandStatus,
  type DeviceDetail,
} from '@cellhub/contract/devices';
import type { CommandType } from '@cellhub/contract/protocol';
import { useState } from 'react';
import { ConfirmAction, RowActions } from '../../../../components/row-actions';
import shareLocale from '../../../../components/share-dialog/locale';
import { formatTime } from '../../../../lib/format-time';
import { useLocale } from '../../../../lib/i18n';
import { ApiError } from '../../../../lib/request';
import { toast } from '../../../../lib/toast';
import { useCancelCommand, useCommands, useSendCommand } from '../../detail-api';
import locale from '../../locale/detail-index';
import { normaliseCommandData } from '../../../../lib/command-value';
import { COMMAND_MAX_LENGTH, commandDataError } from './command-data';
import styles from './detail.module.css';
import CommandGroupsCard, { CommandRefTag } from './command-groups-card';

/**
 * Colours of the command states: waiting (pending) purple, in flight blue, answered green, no answer orange,
 * refused by the broker red, never sent because it ran out of time gold, withdrawn grey.
 */
export const STATUS_BADGE: Record<CommandStatus, Pick<BadgeProps, 'status' | 'color'>> = {
  pending: { color: 'purple' },
  sent: { status: 'processing' },
  replied: { status: 'success' },
  timeout: { status: 'warning' },
  failed: { status: 'error' },
  expired: { color: 'gold' },
  cancelled: { color: 'gray' },
};

/** The queue's time-to-live in whole hours, as the form offers it (1 h to 7 days). */
export const TTL_HOURS_DEFAULT = COMMAND_TTL_DEFAULT_S / 3600;
export const TTL_HOURS_MAX = COMMAND_TTL_MAX_S / 3600;

/** Whether a 10113 names the time-to-live (the form bounds it, so only a changed rule gets here). */
const refusesTtl = (details: unknown) =>
  Array.isArray(details) && details.some((d) => (d as { field?: unknown }).field === 'ttl_seconds');

interface SendForm {
  type: CommandType;
  data: string;
  offline: CommandOfflineMode;
  ttl_hours: number;
}

/**
 * Sends a command (HEX or string) and lists the history; the page refreshes it on device.command events. When the
 * device is offline the command fails at once (20401), or waits for the device for up to N hours, as the user
 * chooses; a waiting command can be cancelled.
 */
export default function CommandsPanel({ d, readOnly = false }: { d: DeviceDetail; readOnly?: boolean }) {
  const t = useLocale(locale);
  const ts = useLocale(shareLocale);
  const [form] = Form.useForm<SendForm>();
  const [page, setPage] = useState({ current: 1, per_page: 10 });
  const list = useCommands(d.sn, page);
  const send = useSendCommand(d.sn);
  const cancel = useCancelCommand(d.sn);
  const [type, setType] = useState<CommandType>('hex');
  const [offline, setOffline] = useState<CommandOfflineMode>('fail');
  const [ttlHours, setTtlHours] = useState(TTL_HOURS_DEFAULT);

  const submit = async () => {
    const values = await form.validate().catch(() => undefined);
    if (!values) return;
    try {
      const sent = await send.mutateAsync({
        type: values.type,
        data: normaliseCommandData(values.type, values.data) ?? '',
        ...(values.offline === 'queue'
          ? { offline: 'queue' as const, ttl_seconds: Math.round(values.ttl_hours * 3600) }
          : {}),
      });
      if (sent.status === 'pending')
        toast('info', t('deviceDetail.cmd.queued', { time: formatTime(sent.expiresat) }));
      else toast('success', t('deviceDetail.cmd.sent'));
      setPage((p) => ({ ...p, current: 1 }));
    } catch (e) {
      if (!(e instanceof ApiError) || e.httpStatus === 403) return;
      if (e.code === 20401) toast('error', t('deviceDetail.cmd.offline'));
      else if (e.code === 70003 || (e.code === 10113 && !refusesTtl(e.details)))
        form.setFields({ data: { error: { message: e.message } } });
      else toast('error', e.message);
    }
  };

  const offlineHint =
    d.online === 1
      ? undefined
      : offline === 'queue'
        ? t('deviceDetail.cmd.offlineQueueHint', { hours: ttlHours })
        : t('deviceDetail.cmd.offlineFailHint');

  return (
    // A column with gaps, not Space: Space wraps a card that renders nothing (no command groups) in an empty item
    // whose margin left a gap above the first card.
    <div style={{ display: 'flex', flexDirection: 'column', gap: 16, width: '100%' }}>
      <CommandGroupsCard d={d} />
      {readOnly ? (
        <Alert type="info" content={ts('shareDialog.readonly.commands')} data-testid="command-readonly" />
      ) : (
        <Card bordered={false} title={t('deviceDetail.cmd.send')}>
          <Form
            form={form}
            layout="inline"
            className={styles.commandForm}
            initialValues={{ type: 'hex', data: '', offline: 'fail', ttl_hours: TTL_HOURS_DEFAULT }}
            onValuesChange={(changed) => {
              if (changed.type) {
                setType(changed.type);
                // The rule depends on the type: re-check what is already typed.
                if (form.getFieldValue('data')) void form.validate(['data']).catch(() => undefined);
              }
              if (changed.offline) setOffline(changed.offline);
              if (typeof changed.ttl_hours === 'number') setTtlHours(changed.ttl_hours);
            }}
            onSubmit={() => void submit()}
          >
            <Form.Item field="type" label={t('deviceDetail.cmd.type')}>
              <Radio.Group type="button">
                <Radio value="hex">HEX</Radio>
                <Radio value="string">String</Radio>
              </Radio.Group>
            </Form.Item>
            <Form.Item
              field="data"
              label={t('deviceDetail.cmd.data')}
              style={{ minWidth: 420 }}
              rules={[
                {
                  validator: (value: string | undefined, cb) => {
                    const kind = (form.getFieldValue('type') as CommandType | undefined) ?? 'hex';
                    const err = commandDataError(kind, normaliseCommandData(kind, value));
                    cb(err ? t(err, { max: COMMAND_MAX_LENGTH }) : undefined);
                  },
                },
              ]}
            >
              <Input
                allowClear
                className={styles.mono}
                style={{ width: 360 }}
                data-testid="command-data"
                placeholder={t(
                  type === 'hex'
                    ? 'deviceDetail.cmd.data.hexPlaceholder'
                    : 'deviceDetail.cmd.data.stringPlaceholder',
                )}
              />
            </Form.Item>
            <Form.Item field="offline" label={t('deviceDetail.cmd.ifOffline')}>
              <Radio.Group type="button" data-testid="command-offline">
                <Radio value="fail">{t('deviceDetail.cmd.ifOffline.fail')}</Radio>
                <Radio value="queue">{t('deviceDetail.cmd.ifOffline.queue')}</Radio>
              </Radio.Group>
            </Form.Item>
            {offline === 'queue' && (
              <Form.Item
                field="ttl_hours"
                label={t('deviceDetail.cmd.ttl')}
                rules={[{ required: true, type: 'number', min: 1, max: TTL_HOURS_MAX }]}
              >
                <InputNumber
                  min={1}
                  max={TTL_HOURS_MAX}
                  precision={0}
                  style={{ width: 130 }}
                  suffix={t('deviceDetail.cmd.ttl.unit')}
                  data-testid="command-ttl"
                />
              </Form.Item>
            )}
            <Form.Item>
              <Tooltip content={offlineHint}>
                <Button type="primary" htmlType="submit" loading={send.isPending} data-testid="command-send">
                  {t('deviceDetail.cmd.send')}
                </Button>
              </Tooltip>
            </Form.Item>
          </Form>
        </Card>
      )}
      <Card bordered={false} title={t('deviceDetail.cmd.history')}>
        <Table
          rowKey="id"
          loading={list.isFetching && !list.data}
          data={list.data?.data ?? []}
          data-testid="command-history"
          pagination={{
            current: page.current,
            pageSize: page.per_page,
            total: list.data?.total ?? 0,
            showTotal: true,
            sizeCanChange: true,
            onChange: (current, per_page) => setPage({ current, per_page }),
          }}
          columns={[
            {
              title: t('deviceDetail.cmd.col.sentat'),
              render: (_: unknown, c) => formatTime(c.sentat),
              width: 170,
            },
            { title: t('deviceDetail.cmd.col.type'), dataIndex: 'type', width: 80 },
            {
              title: t('deviceDetail.cmd.col.data'),
              render: (_: unknown, c) => (
                <>
                  <CommandRefTag c={c} />
                  <span className={styles.mono}>{c.data}</span>
                </>
              ),
            },
            {
              title: t('deviceDetail.cmd.col.status'),
              width: 190,
              render: (_: unknown, c) => <CommandStatusCell c={c} />,
            },
            {
              title: t('deviceDetail.cmd.col.latency'),
              width: 90,
              render: (_: unknown, c) => (c.latency_ms === null ? '-' : `${c.latency_ms} ms`),
            },
            { title: t('deviceDetail.cmd.col.code'), width: 80, render: (_: unknown, c) => c.code ?? '-' },
            {
              title: t('deviceDetail.cmd.col.reply'),
              render: (_: unknown, c) => <span className={styles.mono}>{c.reply ?? '-'}</span>,
            },
            {
              title: t('deviceDetail.cmd.col.actions'),
              width: 110,
              render: (_: unknown, c) =>
                c.status === 'pending' && !readOnly ? (
                  <RowActions>
                    <ConfirmAction
                      title={t('deviceDetail.cmd.cancelConfirm')}
                      status="danger"
                      onConfirm={() => cancel.mutateAsync(c.id)}
                      done={t('deviceDetail.cmd.cancelled')}
                    >
                      {t('deviceDetail.cmd.cancel')}
                    </ConfirmAction>
                  </RowActions>
                ) : (
                  '-'
                ),
            },
          ]}
        />
      </Card>
    </div>
  );
}

/** The state, coloured; a queued command also says until when it waits (and when it was queued, on hover). */
function CommandStatusCell({ c }: { c: CommandItem }) {
  const t = useLocale(locale);
  const badge = (
    <Badge
      {...STATUS_BADGE[c.status]}
      text={t(`deviceDetail.cmd.status.${c.status}`)}
      data-testid={`command-status-${c.id}`}
    />
  );
  if (!c.queuedat || !c.expiresat) return badge;
  return (
    <Tooltip
      content={t('deviceDetail.cmd.queuedInfo', {
        queued: formatTime(c.queuedat),
        expires: formatTime(c.expiresat),
      })}
    >
      <div>
        {badge}
        {c.status === 'pending' && (
          <div className={styles.commandExpiry}>
            {t('deviceDetail.cmd.until', { time: formatTime(c.expiresat) })}
          </div>
        )}
      </div>
    </Tooltip>
  );
}
