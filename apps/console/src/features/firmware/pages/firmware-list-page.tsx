import type { FirmwareItem } from '@cellhub/contract/firmware';
import { Button, Form, Grid, Space, Tag, type TableColumnProps } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions, LinkAction, RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { type FirmwareListParams, useDeleteFirmware, useFirmwareList } from '../api';
import ProductSelect from '../../../components/product-select';
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
  const { form, params, setParams, search } = useKeywordList<FirmwareListParams, Filters>();
  const query = useFirmwareList(params);
  const remove = useDeleteFirmware();

  const columns: TableColumnProps<FirmwareItem>[] = [
    {
      title: <span className={styles.nowrap}>{t('firmware.col.name')}</span>,
      dataIndex: 'name',
      render: (v: string, row) => (
        <RowLink className={styles.name} title={v} to={`/firmware/detail/${row.id}`}>
          {v}
        </RowLink>
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
      // Kept in view at the right while a 1280 px window scrolls the other columns.
      fixed: 'right',
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={`/firmware/edit/${row.id}`}
          confirm={
            row.version_count > 0
              ? t('firmware.delete.withVersions', { count: row.version_count })
              : t('firmware.delete.confirm')
          }
          deleted={t('firmware.delete.done')}
          onDelete={() => remove.mutateAsync(row.id)}
        >
          <LinkAction to={`/firmware/detail/${row.id}`}>{t('firmware.view')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  return (
    <ListPage<FirmwareItem, FirmwareListParams>
      title={t('firmware.list.title')}
      search={
        <ListSearchBar form={form} grid="third" onSearch={search}>
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
          <ChoiceFilter
            label={t('firmware.type')}
            field="type"
            placeholder={t('firmware.type.all')}
            options={[0, 1].map((v) => ({ value: v, label: t(`firmware.type.${v}`) }))}
          />
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
      tableProps={{ scroll: { x: 'max-content' } }}
      empty={
        <ListEmpty
          text={t('firmware.empty')}
          hint={t('firmware.empty.hint')}
          actions={
            <Button type="primary" size="small" onClick={() => void navigate('/firmware/create')}>
              {t('firmware.create')}
            </Button>
          }
        />
      }
    />
  );
}
