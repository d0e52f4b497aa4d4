import type { AlertContactItem } from '@cellhub/contract/alerts';
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
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { type SimpleListParams, useContactList, useDeleteContact } from '../api';
import { VerifiedTag } from '../components/verified-tag';
import { EditDeleteActions } from '../../../components/row-actions';
import { KeywordSearchRow } from '../components/list-parts';
import locale from '../locale';
import styles from './alert.module.css';

/** /alert/contact/list: who receives alerts, and whether their phone and email are verified. */
export default function ContactListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<{ keyword?: string }>();
  const [params, setParams] = useState<SimpleListParams>({ current: 1, per_page: 10 });
  const { data, isFetching } = useContactList(params);
  const remove = useDeleteContact();

  const search = () => {
    const { keyword } = form.getFieldsValue();
    setParams((p) => ({ ...p, current: 1, keyword: keyword?.trim() || undefined }));
  };

  const columns: TableColumnProps<AlertContactItem>[] = [
    { title: t('alert.contact.col.name'), dataIndex: 'name' },
    {
      title: t('alert.contact.col.phone'),
      dataIndex: 'phone',
      render: (v: string, row) =>
        v ? (
          <Space size={6} className={styles.nowrap}>
            <span className={styles.mono}>{v}</span>
            <VerifiedTag verified={row.phone_verified} />
          </Space>
        ) : (
          <span className={styles.muted}>-</span>
        ),
    },
    {
      title: t('alert.contact.col.email'),
      dataIndex: 'email',
      render: (v: string, row) =>
        v ? (
          <Space size={6} className={styles.nowrap}>
            <span>{v}</span>
            <VerifiedTag verified={row.email_verified} />
          </Space>
        ) : (
          <span className={styles.muted}>-</span>
        ),
    },
    {
      title: t('alert.contact.col.usedBy'),
      dataIndex: 'used_by',
      render: (v: number) =>
        v > 0 ? <Tag color="arcoblue">{v}</Tag> : <span className={styles.muted}>0</span>,
    },
    {
      title: t('alert.contact.col.remark'),
      dataIndex: 'remark',
      render: (v: string) => v || <span className={styles.muted}>-</span>,
    },
    {
      title: t('alert.col.created'),
      dataIndex: 'createdat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: t('alert.col.operations'),
      dataIndex: 'operations',
      render: (_: unknown, row) => (
        <EditDeleteActions
          confirm={t('alert.delete.confirm')}
          deleted={t('alert.deleted')}
          edit={`/alert/contact/edit/${row.id}`}
          onDelete={() => remove.mutateAsync(row.id)}
        />
      ),
    },
  ];

  return (
    <PageContainer>
      <Card bordered={false} title={t('alert.contact.title')}>
        <KeywordSearchRow
          t={t}
          form={form}
          onSearch={search}
          placeholder={t('alert.contact.keyword.placeholder')}
        />
        <Divider style={{ marginTop: 0 }} />
        <div className={styles.toolbar}>
          <Button type="primary" icon={<IconPlus />} onClick={() => void navigate('/alert/contact/create')}>
            {t('alert.contact.create')}
          </Button>
        </div>
        <Table<AlertContactItem>
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
