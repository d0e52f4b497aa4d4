import type { AlertConfigItem } from '@cellhub/contract/alerts';
import {
  Button,
  Card,
  Divider,
  Form,
  Space,
  Table,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { durationText } from '../alert-format';
import { type SimpleListParams, useConfigList, useDeleteConfig } from '../api';
import { EditDeleteActions } from '../../../components/row-actions';
import { KeywordSearchRow } from '../components/list-parts';
import locale from '../locale';
import styles from './alert.module.css';

/** /alert/config/list: alert configurations (triggers routed to further contacts). */
export default function ConfigListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<{ keyword?: string }>();
  const [params, setParams] = useState<SimpleListParams>({ current: 1, per_page: 10 });
  const { data, isFetching } = useConfigList(params);
  const remove = useDeleteConfig();

  const search = () => {
    const { keyword } = form.getFieldsValue();
    setParams((p) => ({ ...p, current: 1, keyword: keyword?.trim() || undefined }));
  };

  const columns: TableColumnProps<AlertConfigItem>[] = [
    {
      title: t('alert.config.col.name'),
      dataIndex: 'name',
      render: (v: string, row) => (
        <Space size={6}>
          <span>{v}</span>
          {row.enable === 1 ? null : <Tag size="small">{t('alert.disabled')}</Tag>}
        </Space>
      ),
    },
    {
      title: t('alert.config.col.triggers'),
      dataIndex: 'triggers',
      render: (list: AlertConfigItem['triggers']) => (
        <Space size={4} wrap>
          {list.map((tr) => (
            <Tag key={tr.id} size="small" color="arcoblue">
              {tr.name}
            </Tag>
          ))}
        </Space>
      ),
    },
    {
      title: t('alert.config.col.contacts'),
      dataIndex: 'contacts',
      render: (list: AlertConfigItem['contacts']) =>
        list.length ? list.map((c) => c.name).join(', ') : <span className={styles.muted}>-</span>,
    },
    {
      title: t('alert.config.col.methods'),
      dataIndex: 'methods',
      render: (methods: AlertConfigItem['methods']) => (
        <Space size={4} wrap>
          {methods.map((m) => (
            <Tag key={m} size="small">
              {t(`alert.method.${m}`)}
            </Tag>
          ))}
        </Space>
      ),
    },
    {
      title: t('alert.config.col.interval'),
      dataIndex: 'interval_s',
      render: (v: number) => <span className={styles.nowrap}>{durationText(t, v)}</span>,
    },
    {
      title: t('alert.config.col.pushMode'),
      dataIndex: 'push_mode',
      render: (v: AlertConfigItem['push_mode']) => t(`alert.pushMode.${v}`),
    },
    {
      title: t('alert.col.operations'),
      dataIndex: 'operations',
      render: (_: unknown, row) => (
        <EditDeleteActions
          confirm={t('alert.delete.confirm')}
          deleted={t('alert.deleted')}
          edit={`/alert/config/edit/${row.id}`}
          onDelete={() => remove.mutateAsync(row.id)}
        />
      ),
    },
  ];

  return (
    <PageContainer>
      <Card bordered={false} title={t('alert.config.title')}>
        <div className={styles.help}>{t('alert.config.help')}</div>
        <KeywordSearchRow
          t={t}
          form={form}
          onSearch={search}
          placeholder={t('alert.config.keyword.placeholder')}
        />
        <Divider style={{ marginTop: 0 }} />
        <div className={styles.toolbar}>
          <Button type="primary" icon={<IconPlus />} onClick={() => void navigate('/alert/config/create')}>
            {t('alert.config.create')}
          </Button>
        </div>
        <Table<AlertConfigItem>
          rowKey="id"
          loading={isFetching}
          columns={columns}
          data={data?.data ?? []}
          pagination={listPagination(params, setParams, data?.total, (total) => t('alert.total', { total }))}
        />
      </Card>
    </PageContainer>
  );
}
