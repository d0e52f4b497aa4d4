/** The keyword-filtered list page the alert configuration and contact lists share. */
import type { TableColumnProps } from '@arco-design/web-react';
import { ListPage, useKeywordList, type ListQuery } from '../../../components/list-page';
import { KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions } from '../../../components/row-actions';
import type { Translate } from '../../../lib/i18n';
import type { SimpleListParams } from '../api';

/**
 * `/alert/<kind>/list`: title, keyword row, create button, the kind's columns and an Edit/Delete column, all named
 * by the `alert.<kind>.*` texts.
 */
export function AlertListPage<T extends { id: number }>({
  t,
  kind,
  help,
  columns,
  useList,
  remove,
}: {
  t: Translate;
  kind: 'config' | 'contact';
  help?: string;
  columns: TableColumnProps<T>[];
  useList: (params: SimpleListParams) => ListQuery<T>;
  remove: (id: number) => Promise<unknown>;
}) {
  const { form, params, setParams, search } = useKeywordList<SimpleListParams>();
  const query = useList(params);
  const operations: TableColumnProps<T> = {
    title: t('alert.col.operations'),
    dataIndex: 'operations',
    render: (_: unknown, row: T) => (
      <EditDeleteActions
        confirm={t('alert.delete.confirm')}
        deleted={t('alert.deleted')}
        edit={`/alert/${kind}/edit/${row.id}`}
        onDelete={() => remove(row.id)}
      />
    ),
  };
  return (
    <ListPage<T, SimpleListParams>
      title={t(`alert.${kind}.title`)}
      help={help}
      search={
        <ListSearchBar form={form} grid="half" onSearch={search}>
          <KeywordFilter
            span={12}
            label={t('alert.keyword')}
            placeholder={t(`alert.${kind}.keyword.placeholder`)}
            onSearch={search}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t(`alert.${kind}.create`), to: `/alert/${kind}/create` }}
      rowKey="id"
      columns={[...columns, operations]}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('alert.total', { total })}
    />
  );
}
