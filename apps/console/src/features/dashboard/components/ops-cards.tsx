/**
 * The Workplace's operations blocks (GET /api/dashboard/workplace): active alerts, running OTA tasks, SIM cards to
 * renew, devices offline today. Each block has its loading, error (with retry), empty and filled states and opens
 * the page of each row.
 */
import type { AlertHistoryItem } from '@cellhub/contract/alerts';
import type { DashboardWorkplace, WorkplaceOfflineDevice } from '@cellhub/contract/dashboard';
import type { OtaTaskItem } from '@cellhub/contract/ota';
import type { SimCardItem } from '@cellhub/contract/sim';
import {
  Button,
  Card,
  Empty,
  Message,
  Progress,
  Result,
  Skeleton,
  Table,
  type TableColumnProps,
  Tag,
} from '@arco-design/web-react';
import type { ReactNode } from 'react';
import { RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { useAcknowledgeAlert } from '../api';
import locale from '../locale';
import styles from './ops-cards.module.css';

const DAY_MS = 86_400_000;

export interface OpsState {
  data: DashboardWorkplace | undefined;
  isLoading: boolean;
  isError: boolean;
  refetch: () => void;
}

export const deviceLink = (productKey: string, sn: string) => `/device/detail/${productKey}/${sn}`;

function OpsCard({
  testId,
  title,
  total,
  more,
  state,
  empty,
  children,
}: {
  testId: string;
  title: string;
  total: number | undefined;
  more: string;
  state: OpsState;
  empty: boolean;
  children: ReactNode;
}) {
  const t = useLocale(locale);
  let body: ReactNode;
  if (state.isLoading && !state.data) body = <Skeleton animation text={{ rows: 4 }} />;
  else if (state.isError && !state.data)
    body = (
      <Result
        className={styles.state}
        status="error"
        title={t('ops.error')}
        extra={
          <Button size="small" onClick={() => state.refetch()}>
            {t('ops.retry')}
          </Button>
        }
      />
    );
  else if (empty) body = <Empty className={styles.state} description={t(`ops.empty.${testId}`)} />;
  else body = children;
  return (
    <Card
      bordered={false}
      className={styles.card}
      data-testid={`ops-${testId}`}
      title={
        <span className={styles.title}>
          {title}
          {total !== undefined && total > 0 && <span className={styles.count}>{total}</span>}
        </span>
      }
      extra={<RowLink to={more}>{t('ops.viewAll')}</RowLink>}
    >
      {body}
    </Card>
  );
}

export function AlertsBlock({ state }: { state: OpsState }) {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const propertyName = (r: AlertHistoryItem) =>
    (lang === 'en-US' && r.property_name_us) || r.property_name || r.key;
  const ack = useAcknowledgeAlert();
  const block = state.data?.alerts;
  const columns: TableColumnProps<AlertHistoryItem>[] = [
    {
      title: t('ops.alert.device'),
      dataIndex: 'sn',
      render: (_v, r) => (
        <RowLink to={deviceLink(r.product_key, r.sn)} title={r.sn}>
          {r.device_name || r.sn}
        </RowLink>
      ),
    },
    {
      title: t('ops.alert.trigger'),
      dataIndex: 'trigger_name',
      render: (v: string, r) => (
        <RowLink to="/alert/device-trigger/list?tab=history" className={styles.clip} title={v}>
          {v}
          {r.raised_value !== null && r.key ? ` · ${propertyName(r)} ${String(r.raised_value)}` : ''}
        </RowLink>
      ),
    },
    {
      title: t('ops.alert.time'),
      dataIndex: 'raised_at',
      width: 170,
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: t('ops.actions'),
      dataIndex: 'id',
      width: 120,
      render: (id: number, r) =>
        r.acknowledged_at ? (
          <Tag size="small" color="green">
            {t('ops.alert.acked')}
          </Tag>
        ) : (
          <Button
            type="text"
            size="mini"
            loading={ack.isPending && ack.variables === id}
            onClick={() =>
              void ack.mutateAsync(id).then(
                () => Message.success(t('ops.alert.ackDone')),
                () => undefined,
              )
            }
          >
            {t('ops.alert.ack')}
          </Button>
        ),
    },
  ];
  return (
    <OpsCard
      testId="alerts"
      title={t('ops.alerts')}
      total={block?.total}
      more="/alert/device-trigger/list?tab=history"
      state={state}
      empty={!block || block.items.length === 0}
    >
      <Table<AlertHistoryItem>
        rowKey="id"
        size="small"
        border={false}
        pagination={false}
        data={block?.items ?? []}
        columns={columns}
      />
    </OpsCard>
  );
}

function progressOf(task: OtaTaskItem): number {
  const ended = task.success_count + task.fail_count + task.skipped_count + task.cancelled_count;
  return task.device_count > 0 ? Math.round((ended * 100) / task.device_count) : 0;
}

export function OtaBlock({ state }: { state: OpsState }) {
  const t = useLocale(locale);
  const block = state.data?.ota;
  return (
    <OpsCard
      testId="ota"
      title={t('ops.ota')}
      total={block?.total}
      more="/ota/task"
      state={state}
      empty={!block || block.items.length === 0}
    >
      <ul className={styles.list}>
        {(block?.items ?? []).map((task) => (
          <li key={task.id} className={styles.otaRow}>
            <div className={styles.otaHead}>
              <RowLink to={`/ota/task/${task.id}`} className={styles.clip} title={task.name}>
                {task.name}
              </RowLink>
              <span className={styles.muted}>
                {task.product_name} · {task.version}
              </span>
            </div>
            <Progress percent={progressOf(task)} size="small" />
            <div className={styles.muted}>
              {t('ops.ota.counts', {
                done: task.success_count,
                failed: task.fail_count,
                running: task.upgrading_count,
                waiting: task.pending_count,
                total: task.device_count,
              })}
            </div>
          </li>
        ))}
      </ul>
    </OpsCard>
  );
}

interface SimRow {
  kind: 'expiring' | 'exhausted';
  card: SimCardItem;
}

export function SimBlock({ state }: { state: OpsState }) {
  const t = useLocale(locale);
  const d = state.data;
  const rows: SimRow[] = d
    ? [
        ...d.sim_exhausted.items.map((card) => ({ kind: 'exhausted' as const, card })),
        ...d.sim_expiring.items.map((card) => ({ kind: 'expiring' as const, card })),
      ]
    : [];
  const total = d ? d.sim_expiring.total + d.sim_exhausted.total : undefined;
  const daysLeft = (iso: string | null) =>
    iso ? Math.max(0, Math.ceil((new Date(iso).getTime() - Date.now()) / DAY_MS)) : 0;
  const columns: TableColumnProps<SimRow>[] = [
    {
      title: 'ICCID',
      dataIndex: 'card.iccid',
      render: (_v, r) => (
        <RowLink to={`/card/detail/${r.card.iccid}`} className={styles.mono}>
          {r.card.iccid}
        </RowLink>
      ),
    },
    {
      title: t('ops.sim.state'),
      dataIndex: 'kind',
      width: 150,
      render: (_v, r) =>
        r.kind === 'exhausted' ? (
          <Tag size="small" color="red">
            {t('ops.sim.exhausted')}
          </Tag>
        ) : (
          <Tag size="small" color="orange">
            {t('ops.sim.expiresIn', { days: daysLeft(r.card.expiry) })}
          </Tag>
        ),
    },
    {
      title: t('ops.sim.expiry'),
      dataIndex: 'card.expiry',
      width: 160,
      render: (_v, r) => (r.card.expiry ? formatTime(r.card.expiry).slice(0, 10) : '-'),
    },
  ];
  return (
    <OpsCard
      testId="sim"
      title={t('ops.sim')}
      total={total}
      more="/card/list"
      state={state}
      empty={rows.length === 0}
    >
      {d && (
        <div className={styles.muted} data-testid="ops-sim-summary">
          {t('ops.sim.summary', { expiring: d.sim_expiring.total, exhausted: d.sim_exhausted.total })}
        </div>
      )}
      <Table<SimRow>
        rowKey={(r) => `${r.kind}:${r.card.iccid}`}
        size="small"
        border={false}
        pagination={false}
        data={rows}
        columns={columns}
      />
    </OpsCard>
  );
}

export function OfflineBlock({ state }: { state: OpsState }) {
  const t = useLocale(locale);
  const block = state.data?.offline_today;
  const columns: TableColumnProps<WorkplaceOfflineDevice>[] = [
    {
      title: t('ops.alert.device'),
      dataIndex: 'sn',
      render: (_v, r) => (
        <RowLink to={deviceLink(r.product_key, r.sn)} title={r.sn}>
          {r.name || r.sn}
        </RowLink>
      ),
    },
    { title: t('ops.offline.product'), dataIndex: 'product_name', ellipsis: true },
    {
      title: t('ops.offline.lastSeen'),
      dataIndex: 'last_seen',
      width: 170,
      render: (v: string | null) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
  ];
  return (
    <OpsCard
      testId="offline"
      title={t('ops.offline')}
      total={block?.total}
      more="/device/list"
      state={state}
      empty={!block || block.items.length === 0}
    >
      <Table<WorkplaceOfflineDevice>
        rowKey="sn"
        size="small"
        border={false}
        pagination={false}
        data={block?.items ?? []}
        columns={columns}
      />
    </OpsCard>
  );
}
