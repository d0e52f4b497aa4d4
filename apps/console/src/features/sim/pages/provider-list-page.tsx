import {
  SIM_OPERATORS,
  SIM_PROVIDER_KINDS,
  type SimOperator,
  type SimProviderItem,
  type SimProviderKind,
} from '@cellhub/contract/sim';
import {
  Badge,
  Button,
  Card,
  Divider,
  Empty,
  Form,
  Grid,
  Message,
  Modal,
  Popconfirm,
  Result,
  Space,
  Table,
  Tag,
  Tooltip,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { ApiError } from '../../../lib/request';
import {
  useDeleteProvider,
  useProviderList,
  useSyncProvider,
  useTestProvider,
  type ProviderListParams,
} from '../api';
import { SyncRunsTable, SyncStatusTag, TestResultAlert } from '../components/provider-tools';
import locale from '../locale';
import styles from './sim.module.css';

interface Filter {
  keyword?: string;
  kind?: SimProviderKind;
  operator?: SimOperator;
}

const KIND_COLOR: Record<SimProviderKind, string> = { manual: 'gray', onelink: 'arcoblue', '1nce': 'cyan' };

/** /card-admin/provider: operator accounts, their sync state, test connection and sync now. */
export default function ProviderListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<Filter>();
  const [params, setParams] = useState<ProviderListParams>({ current: 1, per_page: 10 });
  const { data, isFetching, isError, refetch } = useProviderList(params);
  const remove = useDeleteProvider();
  const test = useTestProvider();
  const sync = useSyncProvider();
  const [busy, setBusy] = useState<string>();

  const search = () => {
    const v = form.getFieldsValue();
    setParams((p) => ({
      current: 1,
      per_page: p.per_page,
      keyword: v.keyword?.trim() || undefined,
      kind: v.kind || undefined,
      operator: v.operator || undefined,
    }));
  };

  const runTest = async (p: SimProviderItem) => {
    setBusy(`test-${p.id}`);
    try {
      const result = await test.mutateAsync(p.id);
      Modal.info({
        title: t('sim.provider.test.title', { name: p.name }),
        content: <TestResultAlert result={result} t={t} />,
        okText: t('sim.close'),
      });
    } catch {
      // The request layer has shown why.
    } finally {
      setBusy(undefined);
    }
  };

  const runSync = async (p: SimProviderItem) => {
    setBusy(`sync-${p.id}`);
    try {
      const run = await sync.mutateAsync(p.id);
      Message.info(t('sim.provider.sync.queued', { id: run.id }));
    } catch {
      // The request layer has shown why.
    } finally {
      setBusy(undefined);
    }
  };

  const onDelete = (p: SimProviderItem) =>
    remove.mutateAsync(p.id).then(
      () => Message.success(t('sim.deleted')),
      (e: unknown) => {
        const count =
          e instanceof ApiError ? (e.details as { card_count?: number } | undefined)?.card_count : undefined;
        Message.error(
          e instanceof ApiError && e.code === 60009
            ? t('sim.provider.delete.hasCards', { count: count ?? p.card_count })
            : (e as Error).message,
        );
      },
    );

  const columns: TableColumnProps<SimProviderItem>[] = [
    {
      title: t('sim.provider.name'),
      dataIndex: 'name',
      render: (v: string, r) => (
        <div className={styles.stack}>
          <Link
            to={`/card-admin/provider/edit/${r.id}`}
            className={`${styles.link} ${styles.clip}`}
            title={v}
          >
            {v}
          </Link>
          {r.remark && <span className={`${styles.muted} ${styles.small} ${styles.clip}`}>{r.remark}</span>}
        </div>
      ),
    },
    {
      title: t('sim.provider.kind'),
      dataIndex: 'kind',
      render: (v: SimProviderKind) => (
        <Tag size="small" color={KIND_COLOR[v]} title={t(`sim.provider.kind.${v}`)}>
          {t(`sim.provider.kindShort.${v}`)}
        </Tag>
      ),
    },
    {
      title: t('sim.field.operator'),
      dataIndex: 'operator',
      render: (v: SimOperator) => t(`sim.operator.${v}`),
    },
    { title: t('sim.col.cardCount'), dataIndex: 'card_count', align: 'right' },
    {
      title: t('sim.provider.enabled'),
      dataIndex: 'enabled',
      render: (v: boolean) =>
        v ? <Badge status="success" text={t('sim.yes')} /> : <Badge status="default" text={t('sim.no')} />,
    },
    {
      title: t('sim.provider.lastSync'),
      dataIndex: 'last_sync_at',
      render: (_: unknown, r) =>
        r.kind === 'manual' ? (
          <span className={styles.muted}>{t('sim.provider.manualNoSync')}</span>
        ) : r.last_sync_status ? (
          <Tooltip
            content={[r.last_sync_error, t('sim.provider.every', { min: r.sync_interval_min })]
              .filter(Boolean)
              .join(' · ')}
          >
            <div className={styles.stack}>
              <span>
                <SyncStatusTag status={r.last_sync_status} />
              </span>
              <span className={`${styles.muted} ${styles.small} ${styles.nowrap}`}>
                {formatTime(r.last_sync_at)}
              </span>
            </div>
          </Tooltip>
        ) : (
          <span className={styles.muted}>{t('sim.provider.neverSynced')}</span>
        ),
    },
    {
      title: t('sim.col.operations'),
      dataIndex: 'operations',
      fixed: 'right',
      render: (_: unknown, r) => (
        <Space size={0} className={styles.nowrap}>
          <Button type="text" size="small" onClick={() => void navigate(`/card-admin/provider/edit/${r.id}`)}>
            {t('sim.edit')}
          </Button>
          {r.kind !== 'manual' && (
            <>
              <Button
                type="text"
                size="small"
                loading={busy === `test-${r.id}`}
                onClick={() => void runTest(r)}
              >
                {t('sim.provider.testShort')}
              </Button>
              <Button
                type="text"
                size="small"
                disabled={!r.enabled}
                loading={busy === `sync-${r.id}`}
                onClick={() => void runSync(r)}
              >
                {t('sim.provider.syncShort')}
              </Button>
            </>
          )}
          <Popconfirm
            key="delete"
            title={t('sim.deleteConfirm')}
            content={
              r.card_count > 0 ? t('sim.provider.delete.hasCards', { count: r.card_count }) : undefined
            }
            onOk={() => onDelete(r)}
          >
            <Button type="text" size="small" status="danger">
              {t('sim.delete')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  const all = t('sim.filter.all');
  const empty = (
    <Empty
      description={
        <Space direction="vertical" size={8}>
          <span>{t('sim.provider.empty')}</span>
          <span className={styles.muted}>{t('sim.provider.empty.hint')}</span>
          <Button type="primary" size="small" onClick={() => void navigate('/card-admin/provider/create')}>
            {t('sim.provider.create')}
          </Button>
        </Space>
      }
    />
  );

  return (
    <PageContainer>
      <Card bordered={false} title={t('sim.provider.title')}>
        <ListSearchBar
          form={form}
          labelAlign="left"
          labelCol={{ span: 8 }}
          wrapperCol={{ span: 16 }}
          onSearch={search}
        >
          <Grid.Row gutter={24}>
            <KeywordFilter
              label={t('sim.provider.name')}
              placeholder={t('sim.provider.keyword.placeholder')}
              onSearch={search}
            />
            <ChoiceFilter
              label={t('sim.provider.kind')}
              field="kind"
              placeholder={all}
              options={SIM_PROVIDER_KINDS.map((k) => ({ value: k, label: t(`sim.provider.kind.${k}`) }))}
            />
            <ChoiceFilter
              label={t('sim.field.operator')}
              field="operator"
              placeholder={all}
              options={SIM_OPERATORS.map((o) => ({ value: o, label: t(`sim.operator.${o}`) }))}
            />
          </Grid.Row>
        </ListSearchBar>
        <Divider style={{ marginTop: 0 }} />
        <div className={styles.toolbar}>
          <Button
            type="primary"
            icon={<IconPlus />}
            onClick={() => void navigate('/card-admin/provider/create')}
          >
            {t('sim.provider.create')}
          </Button>
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
          <Table<SimProviderItem>
            rowKey="id"
            loading={isFetching && !data}
            columns={columns}
            data={data?.data ?? []}
            noDataElement={empty}
            scroll={{ x: 'max-content' }}
            pagination={listPagination(params, setParams, data?.total, (total) => t('sim.total', { total }))}
          />
        )}
      </Card>
      <Card bordered={false} title={t('sim.sync.title')}>
        <SyncRunsTable />
      </Card>
    </PageContainer>
  );
}
