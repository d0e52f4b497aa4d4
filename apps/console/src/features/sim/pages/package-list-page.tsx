import {
  PACKAGE_TYPES,
  SIM_OPERATORS,
  type PackageItem,
  type PackageType,
  type SimOperator,
} from '@cellhub/contract/sim';
import {
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
  Switch,
  Table,
  Tag,
  Tooltip,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconLock, IconPlus, IconGift } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { ApiError } from '../../../lib/request';
import { useRole } from '../../../lib/user';
import { useDeletePackage, usePackageList, useSavePackage, type PackageListParams } from '../api';
import { flowText, validityText } from '../components/package-cards';
import locale from '../locale';
import { formatMb, yuan } from '../sim-format';
import styles from './sim.module.css';

interface Filter {
  keyword?: string;
  operator?: SimOperator;
  type?: PackageType;
  on_sale?: '1' | '0';
}

/**
 * /card-admin/package: the data packages. Admins create, edit, take off sale and delete (a package in use refuses
 * with 60001); other roles may open it too and see what is on sale, with a way to buy.
 */
export default function PackageListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const isAdmin = useRole() === 'admin';
  const [form] = Form.useForm<Filter>();
  const [params, setParams] = useState<PackageListParams>({ current: 1, per_page: 10 });
  const { data, isFetching, isError, refetch } = usePackageList(params);
  const remove = useDeletePackage();
  const save = useSavePackage();

  const search = () => {
    const v = form.getFieldsValue();
    setParams((p) => ({
      current: 1,
      per_page: p.per_page,
      keyword: v.keyword?.trim() || undefined,
      operator: v.operator || undefined,
      type: v.type || undefined,
      on_sale: v.on_sale || undefined,
    }));
  };

  const onDelete = (p: PackageItem) =>
    remove.mutateAsync(p.id).then(
      () => Message.success(t('sim.deleted')),
      (e: unknown) => {
        if (e instanceof ApiError && e.code === 60001) {
          // Seed code 60001: shown as a dialog that says why and what can be done instead.
          Modal.error({
            title: e.message,
            content: t('sim.package.delete.inUse', { cards: p.card_count, orders: p.order_count }),
            okText: t('sim.close'),
          });
        } else if (e instanceof ApiError && e.httpStatus !== 403) Message.error(e.message);
      },
    );

  const toggleSale = (p: PackageItem, on_sale: boolean) =>
    save.mutateAsync({ id: p.id, body: { on_sale } }).then(
      () => Message.success(on_sale ? t('sim.package.onSale.on') : t('sim.package.onSale.off')),
      (e: unknown) => Message.error((e as Error).message),
    );

  const columns: TableColumnProps<PackageItem>[] = [
    {
      title: t('sim.package.col.name'),
      dataIndex: 'name',
      render: (v: string, r) => (
        <div className={styles.stack}>
          <span className={styles.clip} title={v}>
            {v}
          </span>
          <span className={`${styles.muted} ${styles.small} ${styles.mono}`}>{r.code}</span>
        </div>
      ),
    },
    {
      title: t('sim.field.operator'),
      dataIndex: 'operator',
      render: (v: SimOperator) => t(`sim.operator.${v}`),
    },
    {
      title: t('sim.package.field.type'),
      dataIndex: 'type',
      render: (v: PackageType) => (
        <Tag size="small" color={v === 'pool' ? 'purple' : 'arcoblue'}>
          {t(`sim.packageType.${v}`)}
        </Tag>
      ),
    },
    {
      // Traffic over validity in one cell, so the admin's nine columns fit 1280 px.
      title: t('sim.package.col.flowValidity'),
      dataIndex: 'flow_mb',
      render: (_: unknown, r) => (
        <Tooltip content={flowText(t, r)}>
          <div className={styles.stack}>
            <span className={styles.nowrap}>{formatMb(r.flow_mb)}</span>
            <span className={`${styles.muted} ${styles.small} ${styles.nowrap}`}>{validityText(t, r)}</span>
          </div>
        </Tooltip>
      ),
    },
    {
      title: t('sim.package.col.price'),
      dataIndex: 'price_fen',
      align: 'right',
      render: (v: number) => <span className={styles.money}>{yuan(v)}</span>,
    },
    ...(isAdmin
      ? ([
          {
            title: t('sim.package.field.on_sale'),
            dataIndex: 'on_sale',
            render: (v: boolean, r: PackageItem) => (
              <Switch
                size="small"
                checked={v}
                onChange={(on) => void toggleSale(r, on)}
                aria-label={t('sim.package.field.on_sale')}
              />
            ),
          },
          {
            title: t('sim.package.col.usage'),
            dataIndex: 'card_count',
            render: (_: unknown, r: PackageItem) =>
              r.card_count + r.order_count > 0 ? (
                <Tooltip content={t('sim.package.lockedHint')}>
                  <Space size={4} className={styles.nowrap}>
                    <IconLock className={styles.muted} />
                    {t('sim.package.usage', { cards: r.card_count, orders: r.order_count })}
                  </Space>
                </Tooltip>
              ) : (
                <span className={styles.muted}>{t('sim.package.unused')}</span>
              ),
          },
        ] satisfies TableColumnProps<PackageItem>[])
      : []),
    {
      title: t('sim.col.operations'),
      dataIndex: 'operations',
      fixed: 'right',
      render: (_: unknown, r) =>
        isAdmin ? (
          <Space size={0} className={styles.nowrap}>
            <Button
              type="text"
              size="small"
              onClick={() => void navigate(`/card-admin/package/edit/${r.id}`)}
            >
              {t('sim.edit')}
            </Button>
            <Popconfirm title={t('sim.deleteConfirm')} onOk={() => onDelete(r)}>
              <Button type="text" size="small" status="danger">
                {t('sim.delete')}
              </Button>
            </Popconfirm>
          </Space>
        ) : (
          <Button type="text" size="small" onClick={() => void navigate('/card/package')}>
            {t('sim.action.buy')}
          </Button>
        ),
    },
  ];

  const all = t('sim.filter.all');
  return (
    <PageContainer>
      <Card bordered={false} title={t('sim.package.title')}>
        <ListSearchBar
          form={form}
          labelAlign="left"
          labelCol={{ span: 8 }}
          wrapperCol={{ span: 16 }}
          onSearch={search}
        >
          <Grid.Row gutter={24}>
            <KeywordFilter
              label={t('sim.filter.keyword')}
              placeholder={t('sim.package.keyword.placeholder')}
              onSearch={search}
            />
            <ChoiceFilter
              label={t('sim.field.operator')}
              field="operator"
              placeholder={all}
              options={SIM_OPERATORS.map((o) => ({ value: o, label: t(`sim.operator.${o}`) }))}
            />
            <ChoiceFilter
              label={t('sim.package.field.type')}
              field="type"
              placeholder={all}
              options={PACKAGE_TYPES.map((k) => ({ value: k, label: t(`sim.packageType.${k}`) }))}
            />
            {isAdmin && (
              <ChoiceFilter
                label={t('sim.package.field.on_sale')}
                field="on_sale"
                placeholder={all}
                options={[
                  { value: '1', label: t('sim.package.onSale') },
                  { value: '0', label: t('sim.package.offSale') },
                ]}
              />
            )}
          </Grid.Row>
        </ListSearchBar>
        <Divider style={{ marginTop: 0 }} />
        <div className={styles.toolbar}>
          {isAdmin ? (
            <Button
              type="primary"
              icon={<IconPlus />}
              onClick={() => void navigate('/card-admin/package/create')}
            >
              {t('sim.package.create')}
            </Button>
          ) : (
            <Button type="primary" icon={<IconGift />} onClick={() => void navigate('/card/package')}>
              {t('sim.action.buy')}
            </Button>
          )}
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
          <Table<PackageItem>
            rowKey="id"
            loading={isFetching && !data}
            columns={columns}
            data={data?.data ?? []}
            noDataElement={
              <Empty description={isAdmin ? t('sim.package.empty') : t('sim.package.noneOnSale')} />
            }
            scroll={{ x: 'max-content' }}
            pagination={listPagination(params, setParams, data?.total, (total) => t('sim.total', { total }))}
          />
        )}
      </Card>
    </PageContainer>
  );
}
