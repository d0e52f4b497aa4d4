import type { ProductItem } from '@cellhub/contract/products';
import { Message, Tag, type TableColumnProps } from '@arco-design/web-react';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions, LinkAction, RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeleteProduct, useProductList, type ProductListParams } from '../api';
import { deleteRefusal } from '../delete-refusal';
import locale from '../locale';
import styles from './product.module.css';

export default function ProductListPage() {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<ProductListParams>();
  const query = useProductList(params);
  const remove = useDeleteProduct();

  const onDelete = (row: ProductItem) =>
    remove.mutateAsync(row.product_key).then(
      () => Message.success(t('product.delete.done')),
      (e: unknown) => {
        const refusal = deleteRefusal(e);
        Message.error(
          refusal ? t('product.delete.hasDevices', { count: refusal.device_count }) : (e as Error).message,
        );
      },
    );

  const columns: TableColumnProps<ProductItem>[] = [
    {
      title: t('product.col.name'),
      dataIndex: 'name',
      render: (v: string, row) => (
        <RowLink className={styles.nowrap} to={`/product/detail/${row.product_key}`}>
          {v}
        </RowLink>
      ),
    },
    {
      title: t('product.col.productKey'),
      dataIndex: 'product_key',
      render: (v: string) => <span className={styles.mono}>{v}</span>,
    },
    {
      title: t('product.col.nodetype'),
      dataIndex: 'nodetype',
      render: (v: string) => <span className={styles.nowrap}>{t(`product.nodetype.${v}`)}</span>,
    },
    {
      title: t('product.col.protocol'),
      dataIndex: 'protocol',
      render: (v: string) => <span className={styles.nowrap}>{v}</span>,
    },
    {
      title: t('product.col.platform'),
      dataIndex: 'iot_platform_name',
      render: (v: string, row) =>
        row.iot_platform_id ? (
          <Tag color="arcoblue" size="small">
            {v}
          </Tag>
        ) : (
          <span className={`${styles.muted} ${styles.nowrap}`}>{t('product.none')}</span>
        ),
    },
    { title: t('product.col.devices'), dataIndex: 'device_count' },
    {
      title: t('product.col.configDifferent'),
      dataIndex: 'config_version_different',
      render: (v: number) =>
        v > 0 ? <Tag color="orange">{v}</Tag> : <span className={styles.muted}>0</span>,
    },
    {
      title: t('product.col.created'),
      dataIndex: 'createdat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: t('product.col.operations'),
      dataIndex: 'operations',
      // Kept in view at the right while narrow screens scroll the other columns (1280 px with the menu open).
      fixed: 'right',
      width: 190,
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={`/product/edit/${row.product_key}`}
          confirm={t('product.delete.confirm')}
          onDelete={() => onDelete(row)}
        >
          <LinkAction to={`/product/detail/${row.product_key}`}>{t('product.view')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  return (
    <ListPage<ProductItem, ProductListParams>
      title={t('product.list.title')}
      search={
        <ListSearchBar form={form} grid="half" onSearch={search}>
          <KeywordFilter
            label={t('product.keyword')}
            placeholder={t('product.keyword.placeholder')}
            onSearch={search}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('product.create'), to: '/product/create' }}
      rowKey="product_key"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('product.total', { total })}
      tableProps={{ scroll: { x: 'max-content' } }}
    />
  );
}
