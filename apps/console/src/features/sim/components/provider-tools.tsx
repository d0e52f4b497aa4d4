import type {
  SimProviderItem,
  SimProviderTestResult,
  SimSyncRun,
  SimSyncStatus,
} from '@cellhub/contract/sim';
import {
  Alert,
  Button,
  Empty,
  Space,
  Table,
  Tag,
  Tooltip,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconLink, IconSync } from '@arco-design/web-react/icon';
import { useEffect, useState } from 'react';
import { formatTime } from '../../../lib/format-time';
import { useLocale, type Translate } from '../../../lib/i18n';
import { listPagination, type PageParams } from '../../../lib/list-pagination';
import { useSyncProvider, useSyncRuns, useTestProvider } from '../api';
import locale from '../locale';
import styles from '../pages/sim.module.css';

const RUN_COLOR: Record<SimSyncStatus, string> = {
  queued: 'arcoblue',
  running: 'blue',
  retry_wait: 'orange',
  succeeded: 'green',
  failed: 'red',
};

const UNFINISHED: SimSyncStatus[] = ['queued', 'running', 'retry_wait'];

export function SyncStatusTag({ status }: { status: SimSyncStatus }) {
  const t = useLocale(locale);
  return (
    <Tag size="small" color={RUN_COLOR[status]} data-testid="sim-sync-status">
      {t(`sim.sync.${status}`)}
    </Tag>
  );
}

/** The answer of "test connection" in words: ok with the time it took, or what kind of refusal. */
export function TestResultAlert({ result, t }: { result: SimProviderTestResult; t: Translate }) {
  return (
    <Alert
      type={result.ok ? 'success' : 'error'}
      data-testid="sim-provider-test-result"
      title={
        result.ok
          ? t('sim.provider.test.ok', { ms: result.latency_ms })
          : t(`sim.provider.test.fail.${result.error_kind ?? 'provider'}`)
      }
      content={result.message || undefined}
    />
  );
}

/** Sync runs, newest first; polls while one is queued, running or waiting to retry. */
export function SyncRunsTable({ providerId }: { providerId?: number }) {
  const t = useLocale(locale);
  const [params, setParams] = useState<PageParams>({ current: 1, per_page: 5 });
  const [live, setLive] = useState(false);
  const { data, isFetching } = useSyncRuns({ ...params, provider_id: providerId }, live);
  const unfinished = (data?.data ?? []).some((r) => UNFINISHED.includes(r.status));
  useEffect(() => setLive(unfinished), [unfinished]);

  const columns: TableColumnProps<SimSyncRun>[] = [
    ...(providerId === undefined
      ? [
          {
            title: t('sim.col.provider'),
            dataIndex: 'provider_name',
            render: (v: string) => <span className={styles.nowrap}>{v}</span>,
          } satisfies TableColumnProps<SimSyncRun>,
        ]
      : []),
    { title: t('sim.col.trigger'), dataIndex: 'trigger', render: (v: string) => t(`sim.sync.trigger.${v}`) },
    {
      title: t('sim.col.status'),
      dataIndex: 'status',
      render: (v: SimSyncStatus, r) =>
        r.error ? (
          <Tooltip content={r.error}>
            <span>
              <SyncStatusTag status={v} />
            </span>
          </Tooltip>
        ) : (
          <SyncStatusTag status={v} />
        ),
    },
    { title: t('sim.col.attempts'), dataIndex: 'attempts', align: 'right' },
    {
      title: t('sim.col.syncCounts'),
      dataIndex: 'cards_total',
      render: (_: unknown, r) => (
        <span className={styles.nowrap}>
          {t('sim.sync.counts', {
            total: r.cards_total,
            updated: r.cards_updated,
            notFound: r.cards_not_found,
            flagged: r.cards_flagged,
          })}
        </span>
      ),
    },
    {
      title: t('sim.col.time'),
      dataIndex: 'createdat',
      render: (_: unknown, r) => (
        <span className={styles.nowrap}>
          {formatTime(r.finished_at ?? r.started_at ?? r.createdat)}
          {r.status === 'retry_wait' && r.next_attempt_at && (
            <span className={styles.muted}>
              {' '}
              · {t('sim.sync.nextAt', { time: formatTime(r.next_attempt_at) })}
            </span>
          )}
        </span>
      ),
    },
    {
      title: t('sim.col.error'),
      dataIndex: 'error',
      ellipsis: true,
      render: (v: string | null) =>
        v ? <span className={styles.danger}>{v}</span> : <span className={styles.muted}>-</span>,
    },
  ];
  return (
    <Table<SimSyncRun>
      size="small"
      rowKey="id"
      loading={isFetching && !data}
      columns={columns}
      data={data?.data ?? []}
      noDataElement={<Empty description={t('sim.sync.empty')} />}
      pagination={listPagination(params, setParams, data?.total, (total) => t('sim.total', { total }))}
    />
  );
}

/** Test connection and sync now for one remote provider, with their answers and its sync runs. */
export function ProviderTools({ provider }: { provider: SimProviderItem }) {
  const t = useLocale(locale);
  const test = useTestProvider();
  const sync = useSyncProvider();
  const [result, setResult] = useState<SimProviderTestResult>();
  const [queued, setQueued] = useState<SimSyncRun>();
  return (
    <Space direction="vertical" size={12} style={{ width: '100%' }}>
      <Space>
        <Button
          icon={<IconLink />}
          loading={test.isPending}
          onClick={() => void test.mutateAsync(provider.id).then(setResult, () => undefined)}
        >
          {t('sim.provider.test')}
        </Button>
        <Button
          icon={<IconSync />}
          loading={sync.isPending}
          disabled={!provider.enabled}
          onClick={() => void sync.mutateAsync(provider.id).then(setQueued, () => undefined)}
        >
          {t('sim.provider.sync')}
        </Button>
      </Space>
      {result && <TestResultAlert result={result} t={t} />}
      {queued && (
        <Alert
          type="info"
          content={t('sim.provider.sync.queued', { id: queued.id })}
          data-testid="sim-sync-queued"
        />
      )}
      <SyncRunsTable providerId={provider.id} />
    </Space>
  );
}
