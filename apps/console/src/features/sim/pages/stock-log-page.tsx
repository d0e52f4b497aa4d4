import type { SimCardLogItem } from '@cellhub/contract/sim';
import {
  Button,
  Card,
  Descriptions,
  Drawer,
  Empty,
  Result,
  Space,
  Spin,
  Table,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlus, IconUpload } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination, type PageParams } from '../../../lib/list-pagination';
import { useCardLog, useCardLogs } from '../api';
import { CreatedIccids, FailuresTable } from '../components/import-result';
import locale from '../locale';
import styles from './sim.module.css';

function LogDrawer({ id, onClose }: { id?: number; onClose: () => void }) {
  const t = useLocale(locale);
  const { data, isLoading } = useCardLog(id);
  return (
    <Drawer
      width={720}
      title={id ? t('sim.log.detailTitle', { id }) : ''}
      visible={id !== undefined}
      onCancel={onClose}
      footer={null}
      unmountOnExit
    >
      {isLoading || !data ? (
        <Spin style={{ display: 'block', margin: 32 }} />
      ) : (
        <Space direction="vertical" size={16} style={{ width: '100%' }} data-testid="sim-log-detail">
          <Descriptions
            column={2}
            labelStyle={{ color: 'var(--color-text-3)' }}
            data={[
              { label: t('sim.log.source'), value: t(`sim.log.source.${data.source}`) },
              { label: t('sim.log.by'), value: data.username ?? '-' },
              { label: t('sim.log.file'), value: data.filename || '-' },
              { label: t('sim.col.time'), value: formatTime(data.createdat) },
              { label: t('sim.batch.total'), value: data.total },
              {
                label: t('sim.log.result'),
                value: t('sim.log.counts', { created: data.created, failed: data.failed }),
              },
            ]}
          />
          {data.failures.length > 0 && (
            <>
              <div className={styles.sectionTitle}>{t('sim.batch.failures')}</div>
              <FailuresTable failures={data.failures} />
            </>
          )}
          <CreatedIccids iccids={data.iccids} />
        </Space>
      )}
    </Drawer>
  );
}

/** /card-admin/card/log: the stock creation log: who added cards, when, how many, which failed and why. */
export default function StockLogPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [search, setSearch] = useSearchParams();
  const [params, setParams] = useState<PageParams>({ current: 1, per_page: 10 });
  const { data, isFetching, isError, refetch } = useCardLogs(params);
  const openId = Number(search.get('id')) || undefined;
  const open = (id?: number) => setSearch(id ? { id: String(id) } : {}, { replace: true });

  const columns: TableColumnProps<SimCardLogItem>[] = [
    {
      title: t('sim.col.time'),
      dataIndex: 'createdat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: t('sim.log.source'),
      dataIndex: 'source',
      render: (v: 'batch' | 'single') => (
        <Tag size="small" color={v === 'batch' ? 'arcoblue' : 'gray'}>
          {t(`sim.log.source.${v}`)}
        </Tag>
      ),
    },
    {
      title: t('sim.log.file'),
      dataIndex: 'filename',
      render: (v: string) =>
        v ? (
          <span className={styles.clip} title={v}>
            {v}
          </span>
        ) : (
          <span className={styles.muted}>-</span>
        ),
    },
    { title: t('sim.log.by'), dataIndex: 'username', render: (v: string | null) => v ?? '-' },
    { title: t('sim.batch.total'), dataIndex: 'total', align: 'right' },
    {
      title: t('sim.batch.created'),
      dataIndex: 'created',
      align: 'right',
      render: (v: number) => <span className={v ? styles.success : styles.muted}>{v}</span>,
    },
    {
      title: t('sim.batch.failed'),
      dataIndex: 'failed',
      align: 'right',
      render: (v: number) => <span className={v ? styles.danger : styles.muted}>{v}</span>,
    },
    {
      title: t('sim.col.operations'),
      dataIndex: 'operations',
      render: (_: unknown, r) => (
        <Button type="text" size="small" onClick={() => open(r.id)}>
          {t('sim.action.detail')}
        </Button>
      ),
    },
  ];

  return (
    <PageContainer>
      <Card bordered={false} title={t('sim.log.title')}>
        <div className={styles.toolbar}>
          <Space>
            <Button
              type="primary"
              icon={<IconPlus />}
              onClick={() => void navigate('/card-admin/card/create')}
            >
              {t('sim.stock.create')}
            </Button>
            <Button icon={<IconUpload />} onClick={() => void navigate('/card-admin/card/batch')}>
              {t('sim.stock.batch')}
            </Button>
          </Space>
        </div>
        {isError && !data ? (
          <Result
            status="error"
            title={t('sim.loadError')}
            extra={
              <Button type="primary" onClick={() => void refetch()}>
                {t('sim.retry')}
              </Button>
            }
          />
        ) : (
          <Table<SimCardLogItem>
            rowKey="id"
            loading={isFetching && !data}
            columns={columns}
            data={data?.data ?? []}
            noDataElement={<Empty description={t('sim.log.empty')} />}
            pagination={listPagination(params, setParams, data?.total, (total) => t('sim.total', { total }))}
          />
        )}
      </Card>
      <LogDrawer id={openId} onClose={() => open(undefined)} />
    </PageContainer>
  );
}
