import type { TransmitDeviceDetail } from '@cellhub/contract/data-transmit';
import { errorText } from '@cellhub/contract/errors';
import {
  Badge,
  Button,
  Card,
  Descriptions,
  Space,
  Table,
  Tag,
  Tooltip,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconEdit } from '@arco-design/web-react/icon';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { RowLink } from '../../../components/row-actions';
import { formatSize } from '../../../lib/format-size';
import { formatTime } from '../../../lib/format-time';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { useTransmitEvents } from '../../../lib/realtime';
import { applyTransmitEvent, useTransmitRule } from '../api';
import locale from '../locale';

/** /data-transmit/detail/:id — the rule, its devices and their counters, updated live. */
export default function DataTransmitDetailPage() {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const id = Number(useParams().id);
  const valid = isRecordId(id);
  const load = useTransmitRule(valid ? id : undefined);
  const live = useTransmitEvents((e) => {
    if (e.id === id) applyTransmitEvent(qc, e);
  }, valid);

  const state = recordState(load, {
    badId: !valid,
    back: '/data-transmit/list',
    backLabel: t('dt.back'),
    notFoundTitle: t('dt.notFound'),
  });
  if (state) return state;
  const rule = load.data!;

  const traffic = (frames: number, bytes: number, testId: string) => (
    <Space direction="vertical" size={0} data-testid={testId}>
      <span>{t('dt.frames', { n: frames })}</span>
      <span style={{ color: 'var(--color-text-3)' }}>{formatSize(bytes)}</span>
    </Space>
  );

  const columns: TableColumnProps<TransmitDeviceDetail>[] = [
    {
      title: t('dt.dcol.device'),
      dataIndex: 'sn',
      render: (sn: string, d) => (
        <Space direction="vertical" size={2}>
          <Space size={6}>
            <Badge status={d.online === 1 ? 'success' : 'default'} />
            <RowLink to={`/device/detail/${d.product_key}/${sn}`}>{sn}</RowLink>
            {!d.allowed && (
              <Tooltip content={t('dt.notAllowed.help')}>
                <Tag size="small" color="orangered">
                  {t('dt.notAllowed')}
                </Tag>
              </Tooltip>
            )}
          </Space>
          {d.name && <span style={{ color: 'var(--color-text-3)' }}>{d.name}</span>}
        </Space>
      ),
    },
    {
      title: t('dt.dcol.role'),
      dataIndex: 'role',
      width: 80,
      render: (v: string) => (
        <Tag size="small" color={v === 'management' ? 'arcoblue' : 'green'}>
          {t(`dt.role.${v}`)}
        </Tag>
      ),
    },
    ...(rule.address_mode === 'modbus'
      ? [
          {
            title: t('dt.dcol.addresses'),
            dataIndex: 'addresses',
            width: 90,
            render: (v: number[]) => (v.length ? v.join(', ') : '-'),
          } as TableColumnProps<TransmitDeviceDetail>,
        ]
      : []),
    {
      title: t('dt.dcol.up'),
      dataIndex: 'up',
      width: 110,
      render: (_: unknown, d) => traffic(d.counters.frames_up, d.counters.bytes_up, `dt-up-${d.sn}`),
    },
    {
      title: t('dt.dcol.down'),
      dataIndex: 'down',
      width: 110,
      render: (_: unknown, d) => traffic(d.counters.frames_down, d.counters.bytes_down, `dt-down-${d.sn}`),
    },
    {
      title: t('dt.dcol.drops'),
      dataIndex: 'drops',
      width: 70,
      render: (_: unknown, d) =>
        d.counters.drops > 0 && d.counters.last_error !== null ? (
          <Tooltip
            content={t('dt.lastError', {
              text: `${d.counters.last_error} ${errorText(d.counters.last_error, lang) ?? ''}`,
            })}
          >
            <span style={{ color: 'rgb(var(--danger-6))' }} data-testid={`dt-drops-${d.sn}`}>
              {d.counters.drops}
            </span>
          </Tooltip>
        ) : (
          <span data-testid={`dt-drops-${d.sn}`}>{d.counters.drops}</span>
        ),
    },
    {
      title: t('dt.dcol.latency'),
      dataIndex: 'latency',
      width: 130,
      render: (_: unknown, d) =>
        d.counters.latency_ms === null ? (
          '-'
        ) : (
          <Space direction="vertical" size={0} style={{ whiteSpace: 'nowrap' }}>
            <span>{d.counters.latency_ms} ms</span>
            <span style={{ color: 'var(--color-text-3)' }}>
              {t('dt.latency.avg', { ms: d.counters.latency_avg_ms ?? '-' })}
            </span>
          </Space>
        ),
    },
    {
      title: t('dt.dcol.lastFrame'),
      dataIndex: 'last_frame_at',
      width: 100,
      render: (_: unknown, d) =>
        d.counters.last_frame_at ? (
          <Tooltip content={formatTime(d.counters.last_frame_at)}>
            <span>{formatTime(d.counters.last_frame_at).slice(11)}</span>
          </Tooltip>
        ) : (
          '-'
        ),
    },
    {
      title: t('dt.dcol.otherRules'),
      dataIndex: 'other_rules',
      render: (v: TransmitDeviceDetail['other_rules']) =>
        v.length === 0 ? (
          '-'
        ) : (
          <Space size={4} wrap>
            {v.map((r) => (
              <Tag key={r.id} size="small">
                <RowLink to={`/data-transmit/detail/${r.id}`}>{r.name}</RowLink>
              </Tag>
            ))}
          </Space>
        ),
    },
  ];

  return (
    <PageContainer>
      <Space direction="vertical" size={16} style={{ width: '100%' }}>
        <Card
          bordered={false}
          title={rule.name}
          extra={
            <Button
              type="primary"
              icon={<IconEdit />}
              onClick={() => void navigate(`/data-transmit/edit/${rule.id}`)}
            >
              {t('common.edit')}
            </Button>
          }
        >
          <Descriptions
            column={3}
            colon=":"
            data={[
              {
                label: t('dt.col.status'),
                value: (
                  <Badge
                    status={rule.status === 1 ? 'success' : 'default'}
                    text={t(`dt.status.${rule.status}`)}
                  />
                ),
              },
              { label: t('dt.col.group'), value: rule.group || '-' },
              { label: t('dt.col.mode'), value: t(`dt.mode.${rule.address_mode}`) },
              { label: t('dt.col.owner'), value: rule.owner },
              { label: t('dt.col.updated'), value: formatTime(rule.updatedat) },
            ]}
          />
        </Card>
        <Card
          bordered={false}
          title={t('dt.devices')}
          extra={
            live === 'open' ? (
              <Badge status="processing" text={t('dt.live')} />
            ) : live === 'reconnecting' ? (
              <Badge status="warning" text={t('dt.liveOff')} />
            ) : null
          }
        >
          <Table<TransmitDeviceDetail>
            rowKey="sn"
            border={{ wrapper: false, headerCell: false, bodyCell: false }}
            columns={columns}
            data={rule.devices}
            pagination={false}
            noDataElement={<span>{t('dt.noDevices')}</span>}
            scroll={{ x: 960 }}
          />
        </Card>
      </Space>
    </PageContainer>
  );
}
