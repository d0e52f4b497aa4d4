import type { AlertConfigItem } from '@cellhub/contract/alerts';
import { Space, Tag, type TableColumnProps } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import { durationText } from '../alert-format';
import { useConfigList, useDeleteConfig } from '../api';
import { AlertListPage } from '../components/list-parts';
import locale from '../locale';
import styles from './alert.module.css';

/** /alert/config/list: alert configurations (triggers routed to further contacts). */
export default function ConfigListPage() {
  const t = useLocale(locale);
  const remove = useDeleteConfig();

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
  ];

  return (
    <AlertListPage<AlertConfigItem>
      t={t}
      kind="config"
      help={t('alert.config.help')}
      columns={columns}
      useList={useConfigList}
      remove={(id) => remove.mutateAsync(id)}
    />
  );
}
