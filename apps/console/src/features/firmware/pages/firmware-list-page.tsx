import type { FirmwareItem } from '@cellhub/contract/firmware';
import {
  Button,
  Empty,
  Form,
  Grid,
  Message,
  Popconfirm,
  Select,
  Space,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ListPage } from '../../../components/list-page';
import { KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { type FirmwareListParams, useDeleteFirmware, useFirmwareList } from '../api';
import ProductSelect from '../components/product-select';
import locale from '../locale';
import styles from './firmware.module.css';

interface Filters {
  keyword?: string;
  product_key?: string;
  type?: 0 | 1;
}

export default function FirmwareListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<Filters>();
  const [params, setParams] = useState<FirmwareListParams>({ current: 1, per_page: 10 });
  const query = useFirmwareList(params);
  const remove = useDeleteFirmware();

  const search = () => {
    const { keyword, product_key, type } = form.getFieldsValue();
    setParams((p) => ({
      ...p,
      current: 1,
      keyword: keyword?.trim() || undefined,
      product_key: product_key || undefined,
      type,
    }));
  };

  const onDelete = (row: FirmwareItem) =>
    remove.mutateAsync(row.id).then(
      () => Message.success(t('firmware.delete.done')),
      () => undefined,
    );

  const columns: TableColumnProps<FirmwareItem>[] = [
    {
      title: <span className={styles.nowrap}>{t('firmware.col.name')}</span>,
      dataIndex: 'name',
      render: (v: string, row) => (
        <Link className={`${styles.link} ${styles.name}`} title={v} to={`/firmware/detail/${row.id}`}>
          {v}
        </Link>
      ),
    },
    {
      title: <span className={styles.nowrap}>{t('firmware.col.product')}</span>,
      dataIndex: 'product_name',
      render: (v: string, row) => (
        <Space direction="vertical" size={0}>
          <span>{v || <span className={styles.muted}>{t('firmware.productMissing')}</span>}</span>
          <span className={`${styles.mono} ${styles.muted}`}>{row.product_key}</span>
        </Space>
      ),
    },
    {
      title: <span className={styles.nowrap}>{t('firmware.col.type')}</span>,
      dataIndex: 'type',
      render: (v: 0 | 1, row) => (
        <Space size={4} className={styles.nowrap}>
          <Tag color={v === 1 ? 'green' : 'orange'} size="small">
            {t(`firmware.type.${v}`)}
          </Tag>
          <Tag color={row.public ? 'cyan' : undefined} size="small">
            {row.public ? t('firmware.public.yes') : t('firmware.public.no')}
          </Tag>
        </Space>
      ),
    },
    {
      title: <span className={styles.nowrap}>{t('firmware.col.objname')}</span>,
      dataIndex: 'objname',
      render: (v: string) => v || <span className={styles.muted}>—</span>,
    },
    {
      title: <span className={styles.nowrap}>{t('firmware.col.latest')}</span>,
      dataIndex: 'latest_version',
      render: (v: string | null, row) => (
        <Space size={6} className={styles.nowrap}>
          {v ? (
            <Tag color="arcoblue" size="small" className={styles.mono}>
              {v}
            </Tag>
          ) : (
            <span className={styles.muted}>{t('firmware.none')}</span>
          )}
          <span className={styles.muted}>{t('firmware.versionCount', { count: row.version_count })}</span>
        </Space>
      ),
    },
    {
      title: <span className={styles.nowrap}>{t('firmware.col.created')}</span>,
      dataIndex: 'createdat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: <span className={styles.nowrap}>{t('firmware.col.operations')}</span>,
      dataIndex: 'operations',
      render: (_: unknown, row) => (
        <Space size={0} className={styles.nowrap}>
          <Button type="text" size="small" onClick={() => void navigate(`/firmware/detail/${row.id}`)}>
            {t('firmware.view')}
          </Button>
          <Button type="text" size="small" onClick={() => void navigate(`/firmware/edit/${row.id}`)}>
            {t('firmware.edit')}
          </Button>
          <Popconfirm
            title={
              row.version_count > 0
                ? t('firmware.delete.withVersions', { count: row.version_count })
                : t('firmware.delete.confirm')
            }
            onOk={() => onDelete(row)}
          >
            <Button type="text" size="small" status="danger">
              {t('firmware.delete')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  const empty = (
    <Empty
      description={
        <Space direction="vertical" size={8}>
          <span>{t('firmware.empty')}</span>
          <span className={styles.emptyHint}>{t('firmware.empty.hint')}</span>
          <Button type="primary" size="small" onClick={() => void navigate('/firmware/create')}>
            {t('firmware.create')}
          </Button>
        </Space>
      }
    />
  );

  return (
    <ListPage<FirmwareItem, FirmwareListParams>
      title={t('firmware.list.title')}
      search={
        <ListSearchBar
          form={form}
          labelCol={{ span: 6 }}
          wrapperCol={{ span: 18 }}
          labelAlign="left"
          onSearch={search}
        >
          <Grid.Row gutter={24}>
            <KeywordFilter
              label={t('firmware.keyword')}
              placeholder={t('firmware.keyword.placeholder')}
              onSearch={search}
            />
            <Grid.Col span={8}>
              <Form.Item label={t('firmware.product')} field="product_key">
                <ProductSelect allowClear placeholder={t('firmware.product.placeholder')} />
              </Form.Item>
            </Grid.Col>
            <Grid.Col span={8}>
              <Form.Item label={t('firmware.type')} field="type">
                <Select
                  allowClear
                  placeholder={t('firmware.type.all')}
                  options={[0, 1].map((v) => ({ value: v, label: t(`firmware.type.${v}`) }))}
                />
              </Form.Item>
            </Grid.Col>
          </Grid.Row>
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('firmware.create'), to: '/firmware/create' }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('firmware.total', { total })}
      empty={empty}
    />
  );
}
