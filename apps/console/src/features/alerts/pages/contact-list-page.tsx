import type { AlertContactItem } from '@cellhub/contract/alerts';
import { Space, Tag, type TableColumnProps } from '@arco-design/web-react';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { type SimpleListParams, useContactList, useDeleteContact } from '../api';
import { VerifiedTag } from '../components/verified-tag';
import { EditDeleteActions } from '../../../components/row-actions';
import { KeywordSearchRow } from '../components/list-parts';
import locale from '../locale';
import styles from './alert.module.css';

/** /alert/contact/list: who receives alerts, and whether their phone and email are verified. */
export default function ContactListPage() {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<SimpleListParams>();
  const query = useContactList(params);
  const remove = useDeleteContact();

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
    <ListPage<AlertContactItem, SimpleListParams>
      title={t('alert.contact.title')}
      search={
        <KeywordSearchRow
          t={t}
          form={form}
          onSearch={search}
          placeholder={t('alert.contact.keyword.placeholder')}
        />
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('alert.contact.create'), to: '/alert/contact/create' }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('alert.total', { total })}
    />
  );
}
