import type { ConfigTemplateItem } from '@cellhub/contract/config-templates';
import { Button, Form, Input, Space, Tag, type TableColumnProps } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions, LinkAction } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeleteTemplate, useTemplateList, type TemplateListParams } from '../api';
import { fromConfig } from '../config-fields';
import locale from '../locale';
import styles from '../../../components/run-page.module.css';

export default function ConfigTemplateListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<TemplateListParams>();
  const query = useTemplateList(params);
  const remove = useDeleteTemplate();

  const columns: TableColumnProps<ConfigTemplateItem>[] = [
    {
      title: t('configTemplate.col.name'),
      dataIndex: 'name',
      render: (v: string, row) => (
        <Button type="text" size="mini" onClick={() => void navigate(`/device/config-template/${row.id}`)}>
          {v}
        </Button>
      ),
    },
    { title: t('configTemplate.col.description'), dataIndex: 'description' },
    {
      title: t('configTemplate.col.fields'),
      dataIndex: 'config',
      render: (_: unknown, row) => {
        const groups = Object.keys(row.config);
        return (
          <Space size={4} wrap>
            {groups.map((g) => (
              <Tag key={g} size="small">
                {g}
              </Tag>
            ))}
            <span className={styles.muted}>
              {t('configTemplate.form.chosen', { count: Object.keys(fromConfig(row.config)).length })}
            </span>
          </Space>
        );
      },
    },
    { title: t('configTemplate.col.applies'), dataIndex: 'applies' },
    {
      title: t('configTemplate.col.updated'),
      dataIndex: 'updatedat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      render: (_: unknown, row) => (
        <EditDeleteActions deleted={t('common.deleteSuccess')} onDelete={() => remove.mutateAsync(row.id)}>
          <LinkAction to={`/device/config-template/${row.id}`}>{t('configTemplate.open')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  return (
    <ListPage<ConfigTemplateItem, TemplateListParams>
      title={t('configTemplate.title')}
      search={
        <ListSearchBar form={form} layout="inline" onSearch={search}>
          <Form.Item label={t('configTemplate.keyword')} field="keyword">
            <Input
              placeholder={t('configTemplate.keyword.placeholder')}
              allowClear
              maxLength={64}
              style={{ width: 280 }}
            />
          </Form.Item>
        </ListSearchBar>
      }
      create={{ label: t('configTemplate.create'), to: '/device/config-template/new' }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('configTemplate.total', { total })}
    />
  );
}
