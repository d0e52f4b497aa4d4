import type {
  ConnectedDevice,
  DeviceHostCounters,
  RefusedRegistration,
} from '@cellhub/contract/device-hosts';
import {
  Button,
  Card,
  Descriptions,
  Empty,
  Grid,
  Space,
  Statistic,
  Table,
  Tag,
  Typography,
  type TableColumnProps,
} from '@arco-design/web-react';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeviceHost } from '../api';
import { HostFormModal } from '../components/host-form-modal';
import { HostState } from '../components/host-state';
import locale from '../locale';

const COUNTERS: [keyof DeviceHostCounters, string][] = [
  ['connections', 'dh.counter.connections'],
  ['registrations', 'dh.counter.registrations'],
  ['refused', 'dh.counter.refused'],
  ['bytes_in', 'dh.counter.bytesIn'],
  ['bytes_out', 'dh.counter.bytesOut'],
  ['frames_in', 'dh.counter.framesIn'],
  ['frames_out', 'dh.counter.framesOut'],
  ['heartbeats', 'dh.counter.heartbeats'],
  ['timeouts', 'dh.counter.timeouts'],
  ['errors', 'dh.counter.errors'],
];

const mono = { fontFamily: 'monospace', whiteSpace: 'nowrap' } as const;
const nowrap = { whiteSpace: 'nowrap' } as const;

/** /rule-setting/device-host/detail/:id — settings, live counters, connected devices, refused registrations. */
export default function DeviceHostDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const load = useDeviceHost(isRecordId(id) ? id : undefined);
  const [editing, setEditing] = useState(false);

  const state = recordState(load, {
    badId: !isRecordId(id),
    back: '/rule-setting/device-host/list',
    backLabel: t('dh.back'),
    notFoundTitle: t('dh.notFound'),
  });
  if (state) return state;
  const h = load.data!;
  const format = (f: string) => t(`dh.form.format.${f}`);

  const deviceColumns: TableColumnProps<ConnectedDevice>[] = [
    {
      title: t('dh.dev.sn'),
      dataIndex: 'sn',
      width: 150,
      render: (v: string, r) => (
        <span style={nowrap}>
          <RowLink to={`/device/detail/${encodeURIComponent(r.product_key)}/${encodeURIComponent(v)}`}>
            {v}
          </RowLink>
        </span>
      ),
    },
    {
      title: t('dh.dev.product'),
      dataIndex: 'product_key',
      render: (v: string) => <span style={mono}>{v}</span>,
    },
    {
      title: t('dh.dev.remote'),
      dataIndex: 'remote',
      width: 160,
      render: (v: string) => <span style={mono}>{v}</span>,
    },
    {
      title: t('dh.dev.lastSeen'),
      dataIndex: 'last_seen',
      width: 170,
      render: (v: string, r) => (
        <span style={nowrap} title={`${t('dh.dev.since')}: ${formatTime(r.since)}`}>
          {formatTime(v)}
        </span>
      ),
    },
    {
      title: t('dh.dev.bytes'),
      dataIndex: 'bytes_in',
      width: 110,
      render: (_: unknown, r) => `${r.bytes_in} / ${r.bytes_out}`,
    },
    { title: t('dh.dev.frames'), dataIndex: 'frames_in', width: 80 },
    { title: t('dh.dev.heartbeats'), dataIndex: 'heartbeats', width: 90 },
  ];

  const refusedColumns: TableColumnProps<RefusedRegistration>[] = [
    {
      title: t('dh.ref.at'),
      dataIndex: 'at',
      width: 170,
      render: (v: string) => <span style={nowrap}>{formatTime(v)}</span>,
    },
    { title: t('dh.ref.remote'), dataIndex: 'remote', render: (v: string) => <span style={mono}>{v}</span> },
    {
      title: t('dh.ref.reason'),
      dataIndex: 'reason',
      width: 160,
      render: (v: string) => (
        <Tag size="small" color={v === 'error' ? 'red' : 'orange'}>
          {t(`dh.reason.${v}`)}
        </Tag>
      ),
    },
    { title: t('dh.ref.id'), dataIndex: 'id', render: (v: string) => <span style={mono}>{v || '-'}</span> },
    {
      title: t('dh.ref.packet'),
      dataIndex: 'packet',
      render: (v: string) => (
        <Typography.Text style={{ ...mono, maxWidth: 260, marginBottom: 0 }} ellipsis={{ showTooltip: true }}>
          {v}
        </Typography.Text>
      ),
    },
  ];

  return (
    <PageContainer>
      <Space direction="vertical" size={16} style={{ width: '100%' }}>
        <Card
          bordered={false}
          title={
            <Space>
              {h.name}
              <HostState state={h.state} error={h.error} />
            </Space>
          }
          extra={
            <Space>
              <Button type="primary" onClick={() => setEditing(true)}>
                {t('dh.edit')}
              </Button>
              <Button onClick={() => void navigate('/rule-setting/device-host/list')}>
                {t('common.back')}
              </Button>
            </Space>
          }
        >
          <div data-testid="dh-settings">
            <Descriptions
              column={3}
              title={t('dh.settings')}
              data={[
                { label: t('dh.col.protocol'), value: h.protocol.toUpperCase() },
                { label: t('dh.col.address'), value: <span style={mono}>{h.address}</span> },
                { label: t('dh.form.bind'), value: <span style={mono}>{`${h.bind}:${h.port}`}</span> },
                {
                  label: t('dh.form.registration'),
                  value: (
                    <span>
                      {t(`dh.form.registerBy.${h.register_by}`)} · {format(h.register_format)} ·{' '}
                      <span style={mono}>{h.register_pattern}</span>
                    </span>
                  ),
                },
                {
                  label: t('dh.form.heartbeat'),
                  value: h.heartbeat_data ? (
                    <span>
                      {format(h.heartbeat_format)} · <span style={mono}>{h.heartbeat_data}</span> ·{' '}
                      {t('dh.seconds', { n: h.heartbeat_interval })}
                    </span>
                  ) : (
                    t('dh.none')
                  ),
                },
                { label: t('dh.form.idleTimeout'), value: t('dh.seconds', { n: h.idle_timeout }) },
                { label: t('dh.col.enabled'), value: h.enabled ? t('dh.enabled') : t('dh.disabled') },
                { label: t('dh.col.updated'), value: formatTime(h.updatedat) },
                { label: t('dh.form.remark'), value: h.remark || '-' },
              ]}
            />
          </div>
          {h.state === 'failed' && h.error ? (
            <Typography.Text type="error" data-testid="dh-error">
              {h.error}
            </Typography.Text>
          ) : null}
        </Card>
        <Card
          bordered={false}
          title={t('dh.live')}
          extra={<Typography.Text type="secondary">{t('dh.live.help')}</Typography.Text>}
        >
          <Grid.Row gutter={[16, 16]} data-testid="dh-counters">
            {COUNTERS.map(([key, label]) => (
              <Grid.Col key={key} span={4} style={{ minWidth: 150 }}>
                <Statistic title={t(label)} value={h.counters[key]} groupSeparator />
              </Grid.Col>
            ))}
          </Grid.Row>
        </Card>
        <Card bordered={false} title={`${t('dh.devices')} (${h.devices.length})`}>
          <Table
            rowKey="sn"
            data={h.devices}
            columns={deviceColumns}
            pagination={h.devices.length > 20 ? { pageSize: 20 } : false}
            border={{ wrapper: false, headerCell: false, bodyCell: false }}
            data-testid="dh-devices"
            noDataElement={<Empty description={t('dh.devices.empty')} />}
          />
        </Card>
        <Card bordered={false} title={t('dh.refused')}>
          <Table
            rowKey={(r) => `${r.at}-${r.remote}`}
            data={h.refused_registrations}
            columns={refusedColumns}
            pagination={false}
            border={{ wrapper: false, headerCell: false, bodyCell: false }}
            data-testid="dh-refused"
            noDataElement={<Empty description={t('dh.refused.empty')} />}
          />
        </Card>
      </Space>
      <HostFormModal visible={editing} host={h} onClose={() => setEditing(false)} />
    </PageContainer>
  );
}
