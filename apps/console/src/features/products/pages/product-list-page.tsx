import type { ProductItem } from '@cellhub/contract/products';
import {
  Button,
  Card,
  Divider,
  Form,
  Grid,
  Input,
  Message,
  Table,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ListSearchBar } from '../../../components/list-search-bar';
import { PageContainer } from '../../../components/page-container';
import { EditDeleteActions, LinkAction } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { useDeleteProduct, useProductList, type ProductListParams } from '../api';
import { deleteRefusal } from '../delete-refusal';
import locale from '../locale';
import styles from './product.module.css';

export default function ProductListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<{ keyword?: string }>();
  const [params, setParams] = useState<ProductListParams>({ current: 1, per_page: 10 });
  const { data, isFetching } = useProductList(params);
  const remove = useDeleteProduct();

  const search = () => {
    const { keyword } = form.getFieldsValue();
    setParams((p) => ({ ...p, current: 1, keyword: keyword?.trim() || undefined }));
  };

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
      render: (v: string, row) => <Link to={`/product/detail/${row.product_key}`}>{v}</Link>,
    },
    {
      title: t('product.col.productKey'),
      dataIndex: 'product_key',
      render: (v: string) => <span className={styles.mono}>{v}</span>,
    },
    {
      title: t('product.col.nodetype'),
      dataIndex: 'nodetype',
      render: (v: string) => t(`product.nodetype.${v}`),
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
          <span className={styles.muted}>{t('product.none')}</span>
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
    <PageContainer>
      <Card bordered={false} title={t('product.list.title')}>
        <ListSearchBar
          form={form}
          labelCol={{ span: 5 }}
          wrapperCol={{ span: 19 }}
          labelAlign="left"
          onSearch={search}
        >
          <Grid.Row gutter={24}>
            <Grid.Col span={12}>
              <Form.Item label={t('product.keyword')} field="keyword">
                <Input placeholder={t('product.keyword.placeholder')} allowClear maxLength={64} />
              </Form.Item>
            </Grid.Col>
          </Grid.Row>
        </ListSearchBar>
        <Divider style={{ marginTop: 0 }} />
        <div className={styles.toolbar}>
          <Button type="primary" icon={<IconPlus />} onClick={() => void navigate('/product/create')}>
            {t('product.create')}
          </Button>
        </div>
        <Table<ProductItem>
          rowKey="product_key"
          loading={isFetching}
          columns={columns}
          data={data?.data ?? []}
          pagination={listPagination(params, setParams, data?.total, (total) =>
            t('product.total', { total }),
          )}
        />
      </Card>
    </PageContainer>
  );
}
