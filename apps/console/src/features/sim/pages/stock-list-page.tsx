import type { SimCardItem } from '@cellhub/contract/sim';
import {
  Button,
  Card,
  Divider,
  Dropdown,
  Empty,
  Form,
  Menu,
  Message,
  Modal,
  Result,
  Select,
  Space,
  Table,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconDownload, IconFile, IconMore, IconPlus, IconUpload } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { ApiError } from '../../../lib/request';
import {
  downloadCardExport,
  useCardList,
  useCardStatusAction,
  useDeleteCard,
  useProviderOptions,
  type CardListParams,
} from '../api';
import { CardEditModal } from '../components/card-edit-modal';
import { CardFilters, filterFromValues, type CardFilterValues } from '../components/card-filters';
import { CardFlagTags, CardStatusTag, ExpiryText, UsageBar } from '../components/sim-tags';
import locale from '../locale';
import styles from './sim.module.css';

type RowAction = 'activate' | 'suspend' | 'delete';

/** /card-admin/card: every card in stock and in service, with status filters, edit, activate/suspend, delete. */
export default function StockListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<CardFilterValues>();
  const [params, setParams] = useState<CardListParams>({ current: 1, per_page: 10 });
  const { data, isFetching, isError, refetch } = useCardList(params, 'admin');
  const providers = useProviderOptions();
  const status = useCardStatusAction();
  const remove = useDeleteCard();
  const [editing, setEditing] = useState<SimCardItem>();
  const [exporting, setExporting] = useState(false);

  const search = () =>
    setParams((p) => ({ current: 1, per_page: p.per_page, ...filterFromValues(form.getFieldsValue()) }));

  const runExport = async () => {
    setExporting(true);
    try {
      const { current: _c, per_page: _p, ...filter } = params;
      await downloadCardExport(filter, 'admin');
      Message.success(t('sim.export.done'));
    } catch (e) {
      Message.error((e as Error).message);
    } finally {
      setExporting(false);
    }
  };

  const runStatus = (r: SimCardItem, action: 'activate' | 'suspend') =>
    status.mutateAsync({ iccid: r.iccid, action }).then(
      () => Message.success(t(`sim.stock.${action}.done`)),
      (e: unknown) => {
        if (!(e instanceof ApiError) || e.httpStatus === 403) return;
        const d = e.details as { message?: string } | undefined;
        Message.error(d?.message ? `${e.message}: ${d.message}` : e.message);
      },
    );

  const rowAction = (r: SimCardItem, action: RowAction) =>
    Modal.confirm({
      title: action === 'delete' ? t('sim.deleteConfirm') : t(`sim.stock.${action}.confirm`),
      content: action === 'delete' ? t('sim.stock.delete.hint') : r.iccid,
      okButtonProps: action === 'activate' ? undefined : { status: 'danger' },
      onOk: () =>
        action === 'delete'
          ? remove.mutateAsync(r.iccid).then(
              () => void Message.success(t('sim.deleted')),
              () => undefined,
            )
          : runStatus(r, action),
    });

  const columns: TableColumnProps<SimCardItem>[] = [
    {
      title: t('sim.col.iccidPhone'),
      dataIndex: 'iccid',
      render: (_: unknown, r) => (
        <div className={styles.stack}>
          <Link to={`/card/detail/${r.iccid}`} className={`${styles.link} ${styles.mono}`}>
            {r.iccid}
          </Link>
          <span className={`${styles.muted} ${styles.small} ${styles.mono}`}>{r.phone || '-'}</span>
        </div>
      ),
    },
    {
      title: t('sim.col.operatorProvider'),
      dataIndex: 'operator',
      render: (_: unknown, r) => (
        <div className={styles.stack}>
          <span className={styles.nowrap}>{t(`sim.operator.${r.operator}`)}</span>
          <span className={`${styles.muted} ${styles.small} ${styles.clip}`} style={{ maxWidth: 140 }}>
            {r.provider_name ?? '-'}
          </span>
        </div>
      ),
    },
    {
      title: t('sim.col.status'),
      dataIndex: 'status',
      render: (_: unknown, r) => (
        <Space size={4} wrap style={{ maxWidth: 84 }}>
          <CardStatusTag status={r.status} raw={r.raw_status} />
          <CardFlagTags flags={r.flags} omit={['expiring', 'expired']} />
        </Space>
      ),
    },
    {
      // Package over this month's use: seven columns fit a 1280 px window.
      title: t('sim.col.packageUsage'),
      dataIndex: 'package_name',
      render: (v: string | null, r) => (
        <div className={styles.stack}>
          {v ? (
            <span className={styles.clip} style={{ maxWidth: 150 }} title={v}>
              {v}
            </span>
          ) : (
            <span className={styles.muted}>{t('sim.noPackage')}</span>
          )}
          <UsageBar used={r.month_used} total={r.month_total} width={110} />
        </div>
      ),
    },
    {
      title: t('sim.col.expiry'),
      dataIndex: 'expiry',
      render: (v: string | null) => <ExpiryText expiry={v} stacked />,
    },
    {
      title: t('sim.col.userDevice'),
      dataIndex: 'username',
      render: (_: unknown, r) => (
        <div className={styles.stack} style={{ maxWidth: 120 }}>
          <span className={styles.clip} title={r.username ?? undefined}>
            {r.username ?? <span className={styles.muted}>{t('sim.stock.unassigned')}</span>}
          </span>
          {r.device_sn && (
            <span
              className={`${styles.muted} ${styles.small} ${styles.mono} ${styles.clip}`}
              title={r.device_sn}
            >
              {r.device_sn}
            </span>
          )}
        </div>
      ),
    },
    {
      title: t('sim.col.operations'),
      dataIndex: 'operations',
      fixed: 'right',
      render: (_: unknown, r) => (
        <Space size={0} className={styles.nowrap}>
          <Button type="text" size="small" onClick={() => setEditing(r)}>
            {t('sim.edit')}
          </Button>
          <Dropdown
            position="br"
            droplist={
              <Menu onClickMenuItem={(key) => rowAction(r, key as RowAction)}>
                {r.status === 'active' ? (
                  <Menu.Item key="suspend">{t('sim.stock.suspend')}</Menu.Item>
                ) : (
                  <Menu.Item key="activate" disabled={r.status === 'deactivated'}>
                    {t('sim.stock.activate')}
                  </Menu.Item>
                )}
                <Menu.Item key="delete">
                  <span className={styles.danger}>{t('sim.delete')}</span>
                </Menu.Item>
              </Menu>
            }
          >
            <Button type="text" size="small" icon={<IconMore />} aria-label={t('sim.more')} />
          </Dropdown>
        </Space>
      ),
    },
  ];

  const empty = (
    <Empty
      description={
        <Space direction="vertical" size={8}>
          <span>{t('sim.stock.empty')}</span>
          <Space>
            <Button type="primary" size="small" onClick={() => void navigate('/card-admin/card/create')}>
              {t('sim.stock.create')}
            </Button>
            <Button size="small" onClick={() => void navigate('/card-admin/card/batch')}>
              {t('sim.stock.batch')}
            </Button>
          </Space>
        </Space>
      }
    />
  );

  return (
    <PageContainer>
      <Card bordered={false} title={t('sim.stock.title')}>
        <CardFilters
          form={form}
          onSearch={search}
          extra={
            <Form.Item label={t('sim.field.provider')} field="provider_id">
              <Select
                placeholder={t('sim.filter.all')}
                allowClear
                options={(providers.data?.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
              />
            </Form.Item>
          }
        />
        <Divider style={{ marginTop: 0 }} />
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
            <Button icon={<IconFile />} onClick={() => void navigate('/card-admin/card/log')}>
              {t('sim.stock.log')}
            </Button>
          </Space>
          <Space>
            <Button icon={<IconDownload />} loading={exporting} onClick={() => void runExport()}>
              {t('sim.export')}
            </Button>
            <Dropdown
              droplist={
                <Menu onClickMenuItem={(k) => k === 'usage' && navigate('/card-admin/card/batch?tab=usage')}>
                  <Menu.Item key="usage">{t('sim.usageImport.title')}</Menu.Item>
                </Menu>
              }
            >
              <Button icon={<IconMore />} aria-label={t('sim.more')} />
            </Dropdown>
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
          <Table<SimCardItem>
            rowKey="iccid"
            loading={isFetching && !data}
            columns={columns}
            data={data?.data ?? []}
            noDataElement={empty}
            scroll={{ x: 'max-content' }}
            pagination={listPagination(params, setParams, data?.total, (total) => t('sim.total', { total }))}
          />
        )}
      </Card>
      <CardEditModal card={editing} onClose={() => setEditing(undefined)} />
    </PageContainer>
  );
}
