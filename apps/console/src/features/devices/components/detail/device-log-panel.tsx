import { Card, Select, Table, Tag } from '@arco-design/web-react';
import { DEVICE_LOG_EVENTS, type DeviceLogEvent } from '@cellhub/contract/devices';
import { useState } from 'react';
import { formatTime } from '../../../../lib/format-time';
import { useLocale } from '../../../../lib/i18n';
import { useDeviceLogs } from '../../detail-api';
import locale from '../../locale/detail-index';
import styles from './detail.module.css';

const EVENT_COLOR: Partial<Record<DeviceLogEvent, string>> = {
  connect: 'green',
  disconnect: 'gray',
  rejected: 'red',
  command: 'arcoblue',
  command_reply: 'cyan',
  command_queued: 'purple',
  command_expired: 'gold',
  command_cancelled: 'gray',
  config_set: 'orange',
  config_sent: 'orange',
  config_report: 'gold',
  ota: 'purple',
};

/** What happened to the device, newest first, filtered by kind. */
export default function DeviceLogPanel({ sn }: { sn: string }) {
  const t = useLocale(locale);
  const [event, setEvent] = useState<DeviceLogEvent | undefined>();
  const [page, setPage] = useState({ current: 1, per_page: 20 });
  const logs = useDeviceLogs(sn, { ...page, event });

  return (
    <Card
      bordered={false}
      title={t('deviceDetail.tab.logs')}
      extra={
        <Select
          allowClear
          style={{ width: 200 }}
          placeholder={t('deviceDetail.log.allEvents')}
          value={event}
          data-testid="log-event-filter"
          onChange={(v: DeviceLogEvent | undefined) => {
            setEvent(v);
            setPage((p) => ({ ...p, current: 1 }));
          }}
          options={DEVICE_LOG_EVENTS.map((e) => ({ label: t(`deviceDetail.log.ev.${e}`), value: e }))}
        />
      }
    >
      <Table
        rowKey="id"
        loading={logs.isFetching && !logs.data}
        data={logs.data?.data ?? []}
        data-testid="device-log"
        pagination={{
          current: page.current,
          pageSize: page.per_page,
          total: logs.data?.total ?? 0,
          showTotal: true,
          sizeCanChange: true,
          onChange: (current, per_page) => setPage({ current, per_page }),
        }}
        columns={[
          {
            title: t('deviceDetail.log.time'),
            width: 180,
            render: (_: unknown, l) => formatTime(l.createdat),
          },
          {
            title: t('deviceDetail.log.event'),
            width: 160,
            render: (_: unknown, l) => (
              <Tag color={EVENT_COLOR[l.event]}>{t(`deviceDetail.log.ev.${l.event}`)}</Tag>
            ),
          },
          {
            title: t('deviceDetail.log.detail'),
            render: (_: unknown, l) =>
              Object.keys(l.detail).length ? (
                <span className={styles.mono}>{JSON.stringify(l.detail)}</span>
              ) : (
                '-'
              ),
          },
        ]}
      />
    </Card>
  );
}
