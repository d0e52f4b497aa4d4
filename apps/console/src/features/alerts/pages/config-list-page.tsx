import type { AlertConfigItem } from '@cellhub/contract/alerts';
import { Space, Tag, type TableColumnProps } from '@arco-design/web-react';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { useLocale } from '../../../lib/i18n';
import { durationText } from '../alert-format';
import { type SimpleListParams, useConfigList, useDeleteConfig } from '../api';
import { EditDeleteActions } from '../../../components/row-actions';
import { KeywordSearchRow } from '../components/list-parts';
import locale from '../locale';
import styles from './alert.module.css';

/** /alert/config/list: alert configurations (triggers routed to further contacts). */
export default function ConfigListPage() {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<SimpleListParams>();
  const query = useConfigList(params);
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
    <ListPage<AlertConfigItem, SimpleListParams>
      title={t('alert.config.title')}
      help={t('alert.config.help')}
      search={
        <KeywordSearchRow
          t={t}
          form={form}
          onSearch={search}
          placeholder={t('alert.config.keyword.placeholder')}
        />
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('alert.config.create'), to: '/alert/config/create' }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('alert.total', { total })}
    />
  );
}
