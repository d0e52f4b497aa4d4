import type { AlertContactItem } from '@cellhub/contract/alerts';
import { Space, Tag, type TableColumnProps } from '@arco-design/web-react';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useContactList, useDeleteContact } from '../api';
import { VerifiedTag } from '../components/verified-tag';
import { AlertListPage } from '../components/list-parts';
import locale from '../locale';
import styles from './alert.module.css';

/** /alert/contact/list: who receives alerts, and whether their phone and email are verified. */
export default function ContactListPage() {
  const t = useLocale(locale);
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
  ];

  return (
    <AlertListPage<AlertContactItem>
      t={t}
      kind="contact"
      columns={columns}
      useList={useContactList}
      remove={(id) => remove.mutateAsync(id)}
    />
  );
}
